// A full-duplex point-to-point link: two independent channels (a->b and b->a), each with
// serialization at the link rate and a fixed propagation delay, with any number of frames in
// flight. The rate and the delay are live parameters (output-generated hotspots, a longer
// cable); a change applies to frames that start after it.
#pragma once
#include <memory>
#include <string>
#include <systemc>

#include "models/core/event_queue.h"
#include "models/core/line_arena.h"
#include "models/core/params.h"
#include "models/link/flight_fifo.h"
#include "models/link/wire_if.h"
#include "models/protocol/packet_protocol.h"
#include "models/protocol/socket_on_demand.h"

namespace sluice {

class link;
class mac_port;
class frame_sink_if;

// Where a link direction whose receiver lives in another partition's process sends its frames
// (docs/parallel.md): at the first bit, with the time the last bit lands.
class frame_shipper {
 public:
  virtual ~frame_shipper() = default;
  // Takes the frame (the shipper releases it); `channel` is the direction's number in the fabric.
  virtual void ship(uint32_t channel, uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload& frame) = 0;
};

// What a frame touches on a direction, in the channel's first two cache lines: right after the
// timer's fields (the event queue prefetches a client's first two lines a wake-up ahead), not
// behind sc_module's 232 bytes, which a member of the channel itself would follow. The channel is
// aligned to a line, so that these are two lines, not three. The owner's rate and delay are
// copied here, at the start of simulation and on a rate change.
struct link_channel_fields {
  using flight = flight_fifo<tlm::tlm_generic_payload>;  // oldest first; arrival times never decrease
  // The first line, with the timer's: all a data frame's delivery reads of the direction.
  flight::reader wire_head_;
  // Our receiving MAC's sink and port index, kept current by the MAC (mac_port::attach): a data
  // frame goes to its sink without a read of the MAC's lines.
  frame_sink_if* sink_ = nullptr;
  int sink_index_ = 0;
  bool direct_ = false;  // out_mac_ is set: the direct hop
  // The second line: the start's (the MAC's transmit decision), nothing the delivery reads.
  flight::writer wire_tail_;
  // The serialization of the latest frame's size: a direction's frames mostly have one size, so
  // the division by the rate is done when the size or the rate changes (0 B take 0 ps at any rate).
  uint32_t ser_bytes_ = 0;
  uint64_t ser_ps_ = 0;
  uint64_t tx_end_ps_ = 0;
  uint64_t delay_ps_ = 0;
  uint64_t last_arrival_ps_ = 0;  // of the latest frame started: none lands before it
  uint64_t frames_ = 0;
  // Past the first two lines: what neither a start nor a data frame's delivery reads.
  mac_port* out_mac_ = nullptr;  // `out` bound straight to our own MAC: the direct hop (direct_hops.h)
  // The bytes and busy time of the frames before the latest change of size or rate: each frame
  // since (frames_ - sized_from_) took ser_bytes_ and ser_ps_, so a start adds to neither.
  uint64_t bytes_before_ = 0, busy_before_ps_ = 0, sized_from_ = 0;
  uint64_t counted_bytes() const { return bytes_before_ + (frames_ - sized_from_) * ser_bytes_; }
  uint64_t counted_busy_ps() const { return busy_before_ps_ + (frames_ - sized_from_) * ser_ps_; }
  // Before ser_bytes_ or ser_ps_ change: the frames so far counted at their values.
  void fold_counts() {
    bytes_before_ = counted_bytes();
    busy_before_ps_ = counted_busy_ps();
    sized_from_ = frames_;
  }
};

// One direction. It is also the constant-latency FIFO its frames wait in: every frame takes
// the same propagation delay, so frames in flight leave in the order they started, through one
// pending wake-up, for the head (no time-ordered structure of its own).
// timed_client first: the queue's wake-up (on_timer, warm) then reaches this object without a
// this-adjusting thunk, and its schedule passes `this` as it is. Its fields next (above).
class alignas(64) link_channel : public timed_client,
                                 private link_channel_fields,
                                 public sc_core::sc_module,
                                 public frame_receiver {
  data_rate rate_;
  tlm::tlm_fw_transport_if<packet_protocol_types>* out_if_ = nullptr;  // what `out` is bound to

 public:
  // Made when a model binds them (socket_on_demand.h): our own MACs are joined without them.
  socket_on_demand<frame_in_socket> in;                  // from the transmitting MAC
  socket_on_demand<frame_out_socket<link_channel>> out;  // to the receiving MAC

  explicit link_channel(sc_core::sc_module_name name);

  // Our own MAC transmits on this direction, or receives from it: the direct hop, with no
  // socket made (direct_hops.h). With direct hops off (tests), the sockets are bound instead,
  // as a foreign model's would be.
  void join_from(mac_port& transmitter);
  void join_to(mac_port& receiver);

  // Statistics (read by reports and samplers).
  uint64_t frames() const { return frames_; }
  uint64_t bytes() const { return counted_bytes(); }
  // Wire-busy time up to `now`, counting only the elapsed part of a frame being serialized.
  sc_core::sc_time busy_time(const sc_core::sc_time& now) const;
  const std::string& label() const { return label_; }
  void set_label(std::string l) { label_ = std::move(l); }

  // A partitioned run (docs/parallel.md). The transmitting process's copy ships each frame at its
  // first bit, with its arrival time, instead of carrying it; the receiving process's copy takes
  // it with accept() before the models reach `sent_ps` + the lookahead, and delivers it at its
  // last bit, ordered among ties exactly as the one link of a whole-fabric run would.
  // Set while the fabric is built: our MAC then transmits through the socket (ships() is read at
  // the end of elaboration), so the direct hop's start never ships.
  void ship_to(frame_shipper* shipper, uint32_t channel);
  bool ships() const { return shipper_ != nullptr; }
  void accept(uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload* frame);
  // A frame's first bit at `now_ps` from our own MAC on a direction that ships: serialized and
  // shipped, as the transport call would, without the socket's phase, delay and status. Returns
  // END_REQ's time.
  uint64_t start_shipped(tlm::tlm_generic_payload& p, uint64_t now_ps);

  // A frame's first bit at `now_ps`, from our own MAC bound straight to this channel: what
  // nb_transport_fw does with it, without the phase, the delay and the checks at the door
  // (direct_hops.h; our MAC starts no frame before END_REQ, nor on a channel that ships). Returns
  // END_REQ's time: when the last bit has left.
  // Inline (below): the MAC's transmit takes it without a call.
  uint64_t start(tlm::tlm_generic_payload& p, uint64_t now_ps);
  // The line start() reads and writes (for the transmitting MAC's warm).
  const void* start_line() const { return &wire_tail_; }
  // Whether this direction delivers on the direct hop (its receiver is ours, and every frame came
  // from our MAC's direct hop: nb_transport_fw); for tests.
  bool delivers_directly() const { return direct_; }
  // Our receiving MAC's sink changed: the copy follows.
  void receiver_attached();

 private:
  // The transmitter's first bit (frame_receiver, through in). Final: the direct hop stands for it.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) final;
  [[gnu::cold, gnu::noinline]] void busy_wire_error() const;
  // A frame of `size` bytes starts at `now`: the counters, tx_end_ps_ and its arrival (returned).
  uint64_t serialize(uint32_t size, uint64_t now);
  void on_timer() override;  // the head frame's last bit arrives: deliver every frame now due
  // on_timer for a receiver not ours (out of line: the direct hop's needs no stack frame).
  [[gnu::noinline]] void deliver_through_socket();
  [[gnu::always_inline]] uint64_t deliver_head();    // the head to our MAC (in link.cpp)
  [[gnu::noinline]] void deliver_due(uint64_t now);  // the rest of on_timer when more frames are due
  void deliver_to(mac_port* receiver);               // our own MAC on the direct hop, or nullptr
  // The head of the FIFO and the receiver it goes to: our MAC's sink (its vtable pointer), a
  // foreign receiver's fields wherever they are. (The front slot's address, not its item: a test
  // of the slot would wait for its line.)
  void warm() const override {
    __builtin_prefetch(&wire_head_.front());
    __builtin_prefetch(direct_ ? static_cast<const void*>(sink_) : out_if_);
  }
  // The head frame's header, which the arrival writes (its hop count) and the sink reads: a
  // frame sent a propagation delay ago, whose lines have left the caches of a large fabric.
  void warm_more() const override {
    if (const tlm::tlm_generic_payload* f = wire_head_.front().item) {
      const char* h = reinterpret_cast<const char*>(&header(*f));
      __builtin_prefetch(h);
      __builtin_prefetch(h + 63);
    }
  }
  void end_of_elaboration() override;

  friend class link;
  std::string label_;
  frame_shipper* shipper_ = nullptr;  // this direction's receiver is in another process
  uint32_t channel_ = 0;
  // The latest accepted frame's arrival (in windowed runs the transmitter's start moves
  // last_arrival_ps_ of the same object first).
  uint64_t accepted_arrival_ps_ = 0;
};

// In the line arena (line_arena.h): its two line-aligned directions without a malloc block's padding.
class link : public sc_core::sc_module, public wire_if, private param_listener, public in_line_arena {
 public:
  param<data_rate> rate;
  param<sc_core::sc_time> delay;
  link_channel ab, ba;

  link(sc_core::sc_module_name name, data_rate default_rate, sc_core::sc_time default_delay);
  data_rate current_rate() const override { return ab.rate_; }  // both directions run at one rate
  sc_core::sc_time propagation() const override { return delay(); }
  // Changes the capacity of both directions from now on.
  void set_rate(data_rate r);

  static uint64_t packet_hops();  // frames delivered by all links of this simulation

 private:
  void start_of_simulation() override;
  void set_channels(data_rate r, sc_core::sc_time d);
  void set_channel_rates(data_rate r);
  void param_changed(const param_base&) override;
};

[[gnu::always_inline]] inline uint64_t link_channel::serialize(uint32_t size, uint64_t now) {
  if (size != ser_bytes_) [[unlikely]] {
    fold_counts();
    ser_bytes_ = size;
    ser_ps_ = rate_.serialization_ps(size);
  }
  ++frames_;
  const uint64_t tx_end = now + ser_ps_;
  tx_end_ps_ = tx_end;
  // A frame starts only after the previous one was serialized and, while the delay holds,
  // every frame takes the same: arrival times never decrease, so the wire is a FIFO. After a
  // run-time decrease of the delay a frame lands no earlier than the one ahead of it.
  const uint64_t arrives = std::max(tx_end + delay_ps_, last_arrival_ps_);
  last_arrival_ps_ = arrives;
  return arrives;
}

[[gnu::always_inline]] inline uint64_t link_channel::start(tlm::tlm_generic_payload& p, uint64_t now) {
  // First: then only the MAC's, the frame's and the time's registers are kept across the growth.
  wire_tail_.make_room(wire_head_);
  // The wire is empty if the latest frame landed before now (its delivery ran at its arrival),
  // and may be if it lands now: from this line's fields, not the delivery's. In that tie the
  // wake-up asked for is no later than the one pending if the frame is still on the wire, and
  // so changes nothing.
  const bool was_empty = last_arrival_ps_ <= now;
  const uint64_t arrives = serialize(header(p).size, now);
  const uint64_t tx_end = tx_end_ps_;  // read before the schedule's call, which may write anything
  wire_tail_.push_in_room(arrives, &p);
  if (was_empty) event_queue::current().schedule(this, arrives);
  return tx_end;
}

}  // namespace sluice
