// InfiniBand link-level flow control as a port's flow-control component: per-VL credits in
// 64-byte blocks (IBA Vol. 1 §7.9.4; docs/models/infiniband.md).
//
// Sender side: FCCL, the limit the peer advertised, and FCTBS, the blocks sent, per VL, both
// mod 4096; a packet of N blocks may start iff (FCCL - (FCTBS + N)) mod 4096 <= 2048. Only a
// credit packet opens a closed VL. VL15 (subnet management) is not flow controlled.
// Receiver side: the per-VL input buffer (`prio<k>.buffer`) behind the port, ABR (blocks
// received) and the blocks in use. It advertises FCCL = ABR + min(free blocks, 2048) in 6-byte
// credit packets on the reverse wire: once at link-up (time 0), once `batch` bytes of the VL
// have been freed since its last packet (at most one per VL per `min_interval`), and every
// `refresh`. Nothing beyond the advertised credit can
// arrive; a frame that does is a model error, as is any drop on a credit-controlled port.
// Credit starvation (a frame refused for want of credit until a credit packet lets it go) is
// accounted per VL: the congestion tree of a credit fabric. It starts when the transmitter, at
// real time, finds a ready frame refused (on_waiting); may_send is a pure query, also asked
// ahead of time, so a period cannot end before it began.
// For TCD (docs/models/tcd.md, "InfiniBand") a starved VL is OFF: off_end_ps() is the end of its
// latest starvation, and on_off() reports the credit loop: the receiver returns credit once
// `batch` bytes are free (B1 - B0 = the batch; one 64-byte block when batch is 0), tau = the update policy's wait
// (min_interval)
// + the credit packet's serialization + the reverse and forward link delays.
#pragma once
#include <array>
#include <memory>
#include <systemc>
#include <vector>

#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/link/flow_control.h"
#include "models/link/mac_port.h"

namespace sluice {

class credit_flow_control : public sc_core::sc_module, public flow_control_if, public timed_client {
 public:
  static constexpr int management_vl = 15;  // VL15: not flow controlled
  param<uint64_t> vls;                      // operational data VLs: 0 .. vls-1
  param<sc_core::sc_time> min_interval;
  param<sc_core::sc_time> refresh;
  param<byte_count> batch;
  std::vector<std::unique_ptr<param<byte_count>>> buffer;  // per data VL: the input buffer
  std::vector<std::unique_ptr<param<uint64_t>>> sl2vl;     // per SL: the VL it leaves this port on
  param<byte_count> pool;  // shared by the port's data VLs beyond their own buffers (0: none)

  credit_flow_control(sc_core::sc_module_name name, mac_port& mac, int classes);

  // flow_control_if
  int classes() const override { return classes_; }
  bool may_send(int vl, uint32_t bytes, uint64_t now_ps) const override;
  void on_waiting(int vl, uint32_t bytes) override;
  // Asked only of a VL that may not send: only a credit packet opens it (the MAC is kicked).
  uint64_t blocked_until_ps(int, uint64_t) const override { return never_ps; }
  void on_transmit(int vl, uint32_t bytes) override;
  tlm::tlm_generic_payload* take_control_frame(uint64_t now_ps) override;
  bool control_frame_ready() const override { return ready_ != 0; }
  void on_control_frame(tlm::tlm_generic_payload& frame) override;
  void on_admit(int vl, uint32_t bytes, bool) override;
  void on_release(int vl, uint32_t bytes, bool) override;
  uint64_t off_end_ps(int vl, uint64_t now_ps) const override;
  on_off_loop on_off(int vl) const override;
  link_layer layer() const override { return link_layer::ib; }

  // A receiver whose owner consumes every frame at once (a NIC): frames pass through `next`,
  // their blocks admitted and released on the way, so credit returns as they arrive.
  frame_sink_if& consuming_sink(frame_sink_if& next);

  // Whether VL `vl` has credit buffer on this port (an operational data VL, or VL15).
  bool has_vl(int vl) const;

  // The VL a frame of service level `sl` takes out of this port (the SL-to-VL table).
  uint8_t vl_of(int sl) const { return static_cast<uint8_t>((*sl2vl[sl])()); }

  static uint32_t blocks(uint32_t bytes) { return (bytes + 63) / 64; }

  // The input buffer a VL needs behind this port's receiver so that its sender, sending frames of
  // max_frame_bytes, is never held by the credit loop at the link's rate (docs/models/
  // infiniband.md, "Buffers"). The loop, from a frame's first bit at the sender to the credit
  // packet that returns its blocks taking effect there: one frame time + 2 x the link delay +
  // max(min_interval, batch / C) + the credit packet. The buffer must cover the frames sent in it,
  // each its whole blocks (a 1026-byte frame takes 1088 bytes of credit), and one more.
  uint64_t line_rate_buffer_bytes(uint64_t max_frame_bytes) const;
  // The rate the same loop lets a VL of `buffer_bytes` carry at most, in such frames.
  double credit_loop_rate_bps(uint64_t buffer_bytes, uint64_t max_frame_bytes) const;
  data_rate mac_rate() const { return mac_.wire().current_rate(); }
  // The buffer default of every VL: the need above, at least 64 KiB (room to queue beyond the
  // loop; the 40 Gb/s default before it was derived) and at most the 2048 blocks one credit
  // packet can grant. Call once the link is attached and the overrides are final.
  void derive_buffer_default(uint64_t max_frame_bytes);

  // Statistics.
  uint64_t packets_sent() const { return packets_sent_; }
  uint64_t packets_received() const { return packets_received_; }
  uint64_t blocked_ps(int vl, uint64_t now_ps) const {
    const vl_state& s = vl_[vl];
    return s.blocked_total_ps + (s.blocked ? now_ps - s.blocked_since_ps : 0);
  }
  bool starved(int vl) const { return vl_[vl].blocked; }  // a frame waits for credit now
  // Since when a frame of the VL has waited for credit (never_ps if none waits now).
  uint64_t starved_since_ps(int vl) const { return vl_[vl].blocked ? vl_[vl].blocked_since_ps : never_ps; }
  uint64_t blocked_periods(int vl) const { return vl_[vl].blocked_periods; }
  uint32_t peak_blocks(int vl) const { return vl_[vl].peak_blocks; }
  uint16_t fccl(int vl) const { return vl_[vl].fccl; }
  uint16_t fctbs(int vl) const { return vl_[vl].fctbs; }
  uint16_t advertised(int vl) const;
  uint32_t capacity_blocks(int vl) const { return vl_[vl].capacity_blocks; }
  uint32_t used_blocks(int vl) const { return vl_[vl].used_blocks; }
  // Credit the sender may still use on the VL: FCCL - FCTBS mod 4096; above 2048 it is negative.
  uint32_t available_blocks(int vl) const { return (vl_[vl].fccl - vl_[vl].fctbs) & 0xFFF; }
  // Blocks VL `vl` holds or may still receive: its use plus the credit it was advertised and has
  // not used yet. Beyond its own buffer they come from the shared pool.
  uint32_t committed_blocks(int vl) const;
  uint32_t pool_blocks_used() const;  // the pool's blocks committed to VLs now

 private:
  friend struct invariant_test_hooks;
  struct vl_state {
    // sender
    uint16_t fccl = 0, fctbs = 0;
    bool blocked = false;
    uint32_t wanted_blocks = 0;  // the smallest refused frame's size
    uint64_t blocked_since_ps = 0, blocked_total_ps = 0, blocked_periods = 0;
    uint64_t off_end_ps = 0;  // when the latest starvation ended (0: never starved)
    // receiver
    uint16_t abr = 0;
    uint32_t used_blocks = 0, capacity_blocks = 0, peak_blocks = 0;
    uint64_t last_sent_ps = 0;
    uint32_t freed_blocks = 0;  // released since the VL's last credit packet
    bool sent_once = false;
    uint16_t adv_fccl = 0;  // the limit in the VL's last credit packet (with a shared pool)
  };
  // The limit a credit packet carries; with a pool it takes the pool's free blocks it
  // advertises, and ABR + dedicated + taken must never pass what the port holds.
  uint16_t advertise(int vl);
  void on_timer() override;
  double credit_loop_s(uint64_t max_frame_bytes) const;  // see line_rate_buffer_bytes
  void request_update(int vl);
  void arm(uint64_t at_ps);
  void end_blocked(vl_state& s, uint64_t now_ps);
  uint32_t active_mask() const;
  void start_of_simulation() override;

  mac_port& mac_;
  int classes_;
  std::array<vl_state, max_classes> vl_{};
  uint32_t dirty_ = 0;  // VLs whose limit changed and waits for its minimum interval
  uint32_t ready_ = 0;  // VLs whose credit packet may go on the wire now
  uint64_t next_refresh_ps_ = 0;
  uint64_t packets_sent_ = 0, packets_received_ = 0;
  std::unique_ptr<frame_sink_if> sink_;
};

}  // namespace sluice
