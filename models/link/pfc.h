// IEEE 802.1Qbb priority-based flow control as a port's flow-control component.
//
// Receive side (every port): PFC frames pause or resume priorities after the MAC's response
// delay; the gate reports paused priorities to the port's frame source; paused time is
// accounted per priority.
// Generator side (ports with a buffer behind them, i.e. switch ports): the buffer's XOFF/XON
// verdicts become PFC frames to the upstream neighbour; while a priority stays paused the frame
// is refreshed before the pause expires. Frames are built when the wire frees, so requests made
// meanwhile merge into one frame; XOFF, refresh and XON are counted as they go on the wire.
// The headroom model (how much a lossless group must absorb after XOFF) lives here too.
#pragma once
#include <algorithm>
#include <array>
#include <memory>
#include <systemc>

#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/link/flow_control.h"
#include "models/link/wire_if.h"
#include "models/protocol/pfc_frame.h"

namespace sluice {

class mac_port;

// Told when the PFC watchdog's drop action starts or ends on a priority (the switch port: its
// egress queue of that class drops what it holds and what arrives until the restore).
class pause_storm_listener {
 public:
  virtual ~pause_storm_listener() = default;
  virtual void on_pause_storm(int cls, bool dropping) = 0;
  // Whether the port holds frames of the class waiting to be sent (a paused empty queue is no storm).
  virtual bool holds_frames(int cls) const = 0;
};

class pfc : public sc_core::sc_module, public flow_control_if, public timed_client {
  // The frame waiting for the wire. request() tells our MAC (mac_port::pfc_frame_waits), which
  // then asks for it when the wire frees; a MAC with a subclass asks at every transmit decision.
  pfc_request pending_;

 public:
  param<sc_core::sc_time> response;
  // Generator parameters: present only on ports that generate PFC (nullptr elsewhere).
  std::unique_ptr<param<uint64_t>> quanta;
  std::unique_ptr<param<double>> refresh;
  // The PFC watchdog (switch ports; docs/models/pfc.md): a priority paused without a break for
  // `detect` is in a pause storm; the action (off, drop, ignore-pause) holds until no pause has
  // arrived for `restore`.
  std::unique_ptr<choice_param> watchdog_action;
  std::unique_ptr<param<sc_core::sc_time>> watchdog_detect, watchdog_restore;

  // buffer: the ingress buffer to ask when refreshing (nullptr: this port never generates PFC).
  pfc(sc_core::sc_module_name name, mac_port& mac, int classes, ingress_state_if* buffer);

  // Headroom a lossless priority group needs after XOFF (docs/models/mmu.md): the frame being
  // received when XOFF is decided, the largest frame ahead of the PFC frame on the reverse wire,
  // the PFC frame, the cable round trip, the sender's response time and the frame it had started:
  // 2 x delay x rate + response x rate + 3 x max frame + 64 B, rounded up to 1 KiB.
  static byte_count required_headroom(data_rate rate, sc_core::sc_time delay, sc_core::sc_time peer_response,
                                      uint64_t max_frame);

  // flow_control_if
  int classes() const override { return classes_; }
  bool may_send(int cls, uint32_t, uint64_t now_ps) const override { return !paused(cls, now_ps); }
  uint64_t blocked_until_ps(int cls, uint64_t now_ps) const override {
    return paused(cls, now_ps) ? state_[cls].until_ps : now_ps;
  }
  // Asked at every transmit decision, and mostly nothing waits: no call and no saved registers then.
  tlm::tlm_generic_payload* take_control_frame(uint64_t now_ps) override {
    return pending_.class_enable ? build_control_frame(now_ps) : nullptr;
  }
  bool control_frame_ready() const override { return pending_.class_enable != 0; }
  void on_control_frame(tlm::tlm_generic_payload& frame) override;
  void on_admit(int cls, uint32_t, bool xoff_due) override {
    if (xoff_due) pause_upstream(cls);
  }
  void on_release(int cls, uint32_t, bool xon_due) override {
    if (xon_due) resume_upstream(cls);
  }
  uint64_t off_end_ps(int cls, uint64_t now_ps) const override;
  // gap: this port's own ingress XON hysteresis (the downstream's is taken to be the same);
  // tau: 2 x propagation + this port's response + a PFC frame's serialization.
  on_off_loop on_off(int cls) const override;

  void set_storm_listener(pause_storm_listener* l) { storm_listener_ = l; }
  // The PFC of the port at the link's far end (the fabric wires it; unset: it may pause this
  // port). Whether it ever pauses this port decides whether this port's watchdog, and a NIC's
  // response, can have an effect.
  void set_peer(const pfc& peer) { peer_ = &peer; }
  // Why this port never sends a pausing PFC frame (a NIC's port, or a buffer with no lossless
  // class), or "" when it may.
  std::string never_pauses() const;

  // Generator: sends XOFF / XON for a priority (also usable by tests and firmware models).
  void pause_upstream(int cls);
  void resume_upstream(int cls);

  bool paused(int cls, uint64_t now_ps) const {
    const pause_state& s = state_[cls];
    return s.from_ps <= now_ps && now_ps < s.until_ps;
  }
  // When all of this PFC's pauses end, copied into a reader's own hot line (the port's frame
  // source): no class is paused from then on, so the reader's test of a class reads no line of
  // ours while nothing is paused. Kept no earlier than every pause's end (a pause cut short
  // leaves it later: the reader then asks the class, as before). One reader: another (a test's
  // second source on one port) gets never_ps, and so always asks the class.
  void share_pauses_end(uint64_t& copy);
  void unshare_pauses_end(const uint64_t& copy);  // before the reader goes
  bool paused(int cls, uint64_t now_ps, uint64_t pauses_end_ps) const {
    return now_ps < pauses_end_ps && paused(cls, now_ps);
  }
  sc_core::sc_time paused_time(int cls, const sc_core::sc_time& now) const {
    return from_ps(paused_ps(cls, to_ps(now)));
  }
  uint64_t paused_ps(int cls, uint64_t now_ps) const {  // the same in picoseconds (the sampler's, every sample)
    const pause_state& s = stat(cls);
    const uint64_t open = now_ps > s.from_ps ? std::min(now_ps, s.until_ps) - s.from_ps : 0;
    return s.closed_ps + open;
  }
  // Since when the class has been paused without a break (never_ps if it is not paused now):
  // a refresh extends a pause, only an XON or an expiry ends it (deadlock detection).
  uint64_t paused_since_ps(int cls, uint64_t now_ps) const {
    return cls < classes_ && paused(cls, now_ps) ? state_[cls].from_ps : never_ps;
  }

  // Statistics; 0 for a class beyond PFC's (the classes of an InfiniBand port, which has a PFC
  // only to keep the port's shape).
  uint64_t frames_sent() const { return frames_sent_; }
  uint64_t frames_received() const { return frames_received_; }
  // The generator's and the watchdog's: 0 on a port that generates no PFC (a NIC's).
  uint64_t xoff_sent(int cls) const { return generator(cls).xoff_sent; }
  uint64_t refresh_sent(int cls) const { return generator(cls).refresh_sent; }
  uint64_t xon_sent(int cls) const { return generator(cls).xon_sent; }
  uint64_t pause_received(int cls) const { return stat(cls).xoff_received; }
  uint64_t resume_received(int cls) const { return stat(cls).xon_received; }
  uint64_t watchdog_storms(int cls) const { return generator(cls).storms; }
  uint64_t watchdog_restores(int cls) const { return generator(cls).restores; }
  uint64_t watchdog_ignored(int cls) const { return generator(cls).ignored; }
  bool in_storm(int cls) const { return generator(cls).storm; }

  // The pause interval [from, until) of a class as this receiver holds it.
  uint64_t pause_from_ps(int cls) const { return stat(cls).from_ps; }
  uint64_t pause_until_ps(int cls) const { return stat(cls).until_ps; }
  // The generator keeps a pause of `cls` alive: its refresh timer is armed or an XOFF waits.
  bool maintains_pause(int cls) const { return refresh_armed_ || (pending_.class_enable >> cls & 1); }

 private:
  friend struct invariant_test_hooks;
  enum class reason : uint8_t { none, xoff, refresh, xon };
  // What every port's receiver keeps of a priority.
  struct pause_state {
    uint64_t from_ps = 0, until_ps = 0, closed_ps = 0;  // current interval; paused time before it
    uint64_t prev_until_ps = 0;                         // end of the last non-empty interval before it
    uint64_t xoff_received = 0, xon_received = 0;
  };
  // What only a generating port (a buffer behind it: a switch port) keeps of a priority: the
  // frames it sent and its watchdog, which a NIC's port has neither of (512 bytes a NIC).
  struct generator_state {
    uint64_t xoff_sent = 0, refresh_sent = 0, xon_sent = 0;
    bool storm = false;
    uint64_t rx_pause_end_ps = 0;  // where the latest PFC frame received puts the pause's end, honoured or not
    uint64_t storms = 0, restores = 0, ignored = 0;
  };
  enum class storm_action : uint8_t { off, drop, ignore_pause };
  const pause_state& stat(int cls) const {
    static const pause_state none{};
    return cls < classes_ ? state_[cls] : none;
  }
  const generator_state& generator(int cls) const {
    static const generator_state none{};
    return generator_ && cls < classes_ ? generator_[cls] : none;
  }
  void request(int cls, uint16_t quanta, reason why);
  tlm::tlm_generic_payload* build_control_frame(uint64_t now_ps);  // pending_ as a frame
  void on_timer() override;
  void send_refresh();
  void start_of_simulation() override;
  // The watchdog's next look (never_ps: none needed); it handles what is due at now_ps first.
  uint64_t watchdog_look(uint64_t now_ps);
  void arm_watchdog(uint64_t at_ps);
  void schedule_refresh();
  void apply_pause(int cls, uint64_t effective_ps, uint64_t until_ps);
  static std::string inert_reason(const void* pfc, const param_base& p);
  std::string port_name() const;  // "sw0.port3": the port this PFC belongs to
  data_rate wire_rate() const;

  // Publishes pause_on / pause_off at the times the gate of a class closes and opens, which are
  // later than the frames that cause them (the response delay; an expiry has no frame at all).
  // Made when either probe is first subscribed; unsubscribed runs never schedule it.
  class pause_watch : public timed_client {
   public:
    explicit pause_watch(pfc& owner) : owner_(owner) {}
    void on_timer() override { owner_.watch_pauses(); }

   private:
    pfc& owner_;
  };
  void watch_pauses();
  std::unique_ptr<pause_watch> watch_;
  uint32_t announced_ = 0;  // classes whose pause_on is published and pause_off is not yet

  mac_port& mac_;
  ingress_state_if* buffer_;
  int classes_;
  std::array<pause_state, pfc_priorities> state_{};
  std::unique_ptr<generator_state[]> generator_;  // classes_ of them on a generating port, else null
  std::array<reason, pfc_priorities> pending_why_{};
  bool refresh_armed_ = false;
  storm_action action_ = storm_action::off;  // beside refresh_armed_: no padding of its own
  uint64_t refresh_due_ps_ = 0;
  uint64_t* pauses_end_ = nullptr;  // the reader's copy (share_pauses_end)
  uint64_t detect_ps_ = 0, restore_ps_ = 0;
  uint64_t watchdog_due_ps_ = never_ps;
  pause_storm_listener* storm_listener_ = nullptr;
  const pfc* peer_ = nullptr;
  uint64_t frames_sent_ = 0, frames_received_ = 0;
};

}  // namespace sluice
