// The NIC's transmit scheduler: which flow sends next. Flows wait in a min-heap keyed by the
// time each may next send (start time, on/off period, rate limiter), ties broken by the order
// they were queued, which serves flows ready together round robin. A flow whose class the
// flow-control gate keeps closed is parked with its class until the gate opens. No per-frame
// scan over flows: a frame costs O(log flows).
// Frames the NIC makes itself (CNPs, ACKs) wait in per-class control queues and go first.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "models/cc/flow.h"
#include "models/cc/rate_limiter.h"
#include "models/cc/reaction_point.h"
#include "models/core/packet.h"
#include "models/core/ring.h"
#include "models/link/mac_port.h"
#include "models/link/pfc.h"

namespace sluice {

// What the scheduler needs of its NIC to build data frames.
struct frame_format {
  uint32_t node_id = 0;
  uint64_t mtu = 1000, header = 0, min_frame = 64;
  // The class a flow's priority is sent on: itself, or on InfiniBand the VL of its SL.
  std::array<uint8_t, max_classes> class_of = identity();
  static std::array<uint8_t, max_classes> identity() {
    std::array<uint8_t, max_classes> a{};
    for (int i = 0; i < max_classes; ++i) a[i] = static_cast<uint8_t>(i);
    return a;
  }
};

class alignas(64) tx_scheduler : public frame_source_if {
 public:
  // Control frames of one class: queued (made) and taken for the wire (the invariants' conservation).
  struct control_counters {
    uint64_t control_in = 0, control_in_bytes = 0, control_out = 0, control_out_bytes = 0;
  };
  // What one class sent.
  struct class_counters : control_counters {
    uint64_t frames = 0, bytes = 0;  // data frames
  };

  // classes: the NIC's (its per-class state is sized by them, not by max_classes).
  tx_scheduler(mac_port& mac, flow_control_if& gate, flow_table& flows, int classes);

  void add_flow(uint32_t flow_id, rate_limiter_if* limiter, reaction_point_if* rp);
  // A flow paced by its own pacing_limiter whose change hook calls reschedule() (the NIC's
  // default): it tells every move of its next send time, so its key is never stale and is not
  // read again before each frame, and it is called directly, not through the interface. Until a
  // limiter is bound in its place (bind_limiter).
  void add_flow(uint32_t flow_id, pacing_limiter& own);
  void bind_limiter(uint32_t flow_id, rate_limiter_if* limiter);
  // The flow's limiter (the one bound, or its own); null if this scheduler does not send it.
  rate_limiter_if* limiter_of(uint32_t flow_id) const {
    return flow_id < flows_.size() && sends(flow_id) ? senders_[flows_[flow_id].sender_slot].limiter : nullptr;
  }
  void set_reaction_point(uint32_t flow_id, reaction_point_if* rp);
  // Orders the flows by start; call once parameters are final (start of simulation).
  void start(const frame_format& format);
  // A flow's limiter changed its next send time (a rate change): re-order it now.
  void reschedule(uint32_t flow_id);
  void queue_control(tlm::tlm_generic_payload* frame);

  ~tx_scheduler() override;
  tlm::tlm_generic_payload* next_frame(uint64_t now_ps, uint64_t& retry_ps) override;
  uint64_t next_ready_ps(uint64_t now_ps) const override;
  int classes() const { return classes_; }
  // The data frames are summed over the class's senders (no frame writes a class's line: the
  // fabric's NICs each touch theirs once a frame time, docs/performance.md).
  class_counters sent(int cls) const;
  // Frames the NIC made, by kind (registered by address as <nic>.<kind>_sent).
  const uint64_t& control_frames(frame_kind kind) const { return control_frames_[static_cast<int>(kind)]; }
  // Control frames waiting on a class, and their wire bytes (a walk over the queue: for checks).
  std::size_t control_queued(int cls) const { return class_[cls].control.size(); }
  uint64_t control_queued_bytes(int cls) const;

 private:
  friend struct invariant_test_hooks;
  // A flow this scheduler sends. 64-byte aligned, in three lines: what next_frame's short path
  // reads and writes at every frame first, the header every frame copies second, the rest last
  // (the fabric's NICs are each touched once a frame time: a line is a miss, docs/performance.md).
  struct alignas(64) sender {
    uint64_t ready = 0;             // heap key: earliest send time
    uint64_t order = 0;             // heap key: ties in queueing order
    uint64_t sent = 0;              // payload bytes handed to the MAC
    pacing_limiter* own = nullptr;  // = limiter, if the flow's own (add_flow): called directly
    data_rate source{0};            // set by start(): its own pace; 0: the wire's current rate, read at each frame
    uint64_t start_ps = 0;          // set by start()
    uint32_t flow_id = 0;
    uint32_t full_bytes = 0;  // set by start(): the wire bytes of a full frame (all but a finite flow's last)
    bool finished = false;
    // Its own pacer and no reaction point: nothing it calls while its frame is built can
    // reschedule a flow, so its frame needs no guard (set by set_paths()).
    bool plain = false;
    // Plain, paced at its own configured rate (not the wire's, read through a call), not on/off
    // (its next on-period is a call away), behind our own PFC: next_frame's short path (set by
    // set_paths()).
    bool fast = false;
    bool finite = false, onoff = false;  // set by start(), from the flow's spec (fixed by then)
    // Set by start(): what every frame of the flow carries alike (kind, class, service level,
    // flow and node ids), copied into each frame whole; its payload is a full frame's (the MTU,
    // read by the short path here, in a line it reads anyway).
    frame_fields header;
    rate_limiter_if* limiter = nullptr;
    reaction_point_if* rp = nullptr;
    uint64_t size = 0;  // set by start(): a finite flow's bytes
    int heap_pos = -1;  // -1: not in the heap (parked or finished)
  };
  static_assert(offsetof(sender, onoff) < 64 && offsetof(sender, header) == 64 && sizeof(sender) == 192,
                "a sender's short-path fields in its first line, its header in the second");
  // Sets s.plain and s.fast again after its limiter, reaction point or spec (start) changed.
  void set_paths(sender& s) const {
    s.plain = s.own != nullptr && s.rp == nullptr;
    s.fast = s.plain && s.source.bps > 0 && !s.onoff && pfc_gate_ != nullptr;
  }
  // The earliest time the sender may send: its limiter's, its start, its on/off period.
  uint64_t ready_ps(const sender& s) const {
    const uint64_t t = std::max(s.own ? s.own->pacing_limiter::next_send_ps() : s.limiter->next_send_ps(), s.start_ps);
    return s.onoff ? next_on_ps(s, t) : t;
  }
  uint64_t next_on_ps(const sender& s, uint64_t t) const;  // t, or the start of the next on-period
  // ready_ps of a fast sender (its own pacer, not on/off).
  static uint64_t fast_ready_ps(const sender& s) { return std::max(s.own->pacing_limiter::next_send_ps(), s.start_ps); }
  uint32_t frame_bytes(uint64_t payload) const {
    return static_cast<uint32_t>(std::max(payload + format_.header, format_.min_frame));
  }
  // Our own PFC is asked inline (a virtual call through a thunk was ≈ 25 instructions a frame);
  // credits or a subclass of PFC, which may answer differently, through the interface.
  bool may_send(int cls, uint32_t bytes, uint64_t now_ps) const {
    return pfc_gate_ ? pfc_gate_->pfc::may_send(cls, bytes, now_ps) : gate_.may_send(cls, bytes, now_ps);
  }
  // The same for a parked class's reopening and a refusal (our PFC hears nothing of one).
  uint64_t blocked_until_ps(int cls, uint64_t now_ps) const {
    return pfc_gate_ ? pfc_gate_->pfc::blocked_until_ps(cls, now_ps) : gate_.blocked_until_ps(cls, now_ps);
  }
  void on_waiting(int cls, uint32_t bytes) {
    if (pfc_gate_)
      static_cast<pfc&>(gate_).pfc::on_waiting(cls, bytes);
    else
      gate_.on_waiting(cls, bytes);
  }
  template <bool plain, bool fast>
  tlm::tlm_generic_payload* build(sender& s, uint64_t payload, uint32_t bytes, uint64_t now_ps);
  [[gnu::noinline]] tlm::tlm_generic_payload* send_general(uint32_t i, uint64_t payload, uint32_t bytes,
                                                           uint64_t now_ps);
  [[gnu::noinline]] void park(uint32_t i, int cls, uint32_t bytes);
  // next_frame's general path (the short one is next_frame itself) and its short path's rare
  // ends, out of line so that the short path saves no registers.
  [[gnu::noinline]] tlm::tlm_generic_payload* next_frame_any(uint64_t now_ps, uint64_t& retry_ps);
  // The heap's flows in order, parking those whose class is closed (next_frame_any's loop).
  [[gnu::noinline]] tlm::tlm_generic_payload* serve_heap(uint64_t now_ps, uint64_t& retry_ps);
  [[gnu::noinline]] tlm::tlm_generic_payload* pop_then(tlm::tlm_generic_payload* p);
  // The short path's top flow, whose class our PFC has paused, parked as serve_heap parks it.
  [[gnu::noinline]] tlm::tlm_generic_payload* park_top(uint64_t now_ps, uint64_t& retry_ps);
  [[gnu::noinline]] tlm::tlm_generic_payload* sift_down_then(tlm::tlm_generic_payload* p);
  tlm::tlm_generic_payload* next_control_frame(uint64_t now_ps, uint64_t& retry_ps);
  uint64_t next_ready_gated_ps(uint64_t now_ps) const;  // next_ready_ps with control frames or parked flows
  void unpark(uint64_t now_ps);
  bool unpark_alone(uint64_t now_ps);  // unpark's commonest case, if it is that: see there
  // The heap of sender indices.
  bool before(uint32_t a, uint32_t b) const {
    const sender& x = senders_[a];
    const sender& y = senders_[b];
    return x.ready != y.ready ? x.ready < y.ready : x.order < y.order;
  }
  void push(uint32_t i, uint64_t ready);
  void pop();
  // The top's key moves later: pop() and push() in one walk, with the same key and tie counter
  // (at the root one sift-down restores the heap whatever the new key). Inline: once a frame.
  void requeue_top(uint64_t ready) {
    sender& s = senders_[top_];
    s.ready = ready;
    s.order = order_++;
    if (heap_.size() > 1) sift_down(0);  // alone (a NIC sending one flow): already in place
  }
  void sift_up(std::size_t pos);
  void sift_down(std::size_t pos);
  bool sends(uint32_t flow_id) const {  // flow_id < flows_.size()
    const uint32_t slot = flows_[flow_id].sender_slot;
    return slot < senders_.size() && senders_[slot].flow_id == flow_id;
  }
  uint32_t slot_of(uint32_t flow_id) const;  // its index in senders_; throws if not sent here
  void place(std::size_t pos, uint32_t i) {
    heap_[pos] = i;
    if (pos == 0) top_ = i;
    senders_[i].heap_pos = static_cast<int>(pos);
  }

  // One per class the NIC has (not max_classes: a 10 000-host fabric has 10 000 NICs, and a
  // CEE NIC has 8 classes of InfiniBand's 16).
  struct class_state {
    ring<tlm::tlm_generic_payload*> control;  // frames the NIC made, waiting for the wire
    std::vector<uint32_t> parked;             // senders waiting for the gate to open the class
    control_counters sent;
  };

  // next_frame's short path reads the first line alone (with the vtable pointer: the masks, the
  // heap's top, our PFC and when its pauses end, the order, the flows and the senders' start and
  // end), the class is 64-byte aligned; the heap's own vector only with more than one sender.
  // The masks are 16 bits (max_classes is 16), so that the PFC's pointer fits.
  uint16_t parked_mask_ = 0;
  uint16_t control_mask_ = 0;
  static constexpr uint32_t no_sender = UINT32_MAX;
  // heap_[0], or no_sender with the heap empty: kept by place(), push(), pop() and unpark_alone(),
  // so that the short path does not load the heap's own line.
  uint32_t top_ = no_sender;
  const pfc* pfc_gate_;  // gate_, when it is our PFC itself (not a subclass): asked inline
  // When all of its pauses end (pfc::share_pauses_end): in this line, so that the short path's
  // test of its class reads no line of the PFC's while nothing is paused.
  uint64_t pauses_end_ps_ = 0;
  uint64_t order_ = 0;
  flow_table& flows_;
  std::vector<sender> senders_;
  std::vector<uint32_t> heap_;
  std::unique_ptr<class_state[]> class_;
  frame_format format_;
  mac_port& mac_;
  flow_control_if& gate_;
  int classes_;
  uint32_t building_ = no_sender;  // the sender whose frame next_frame is building (still on top)
  std::array<uint64_t, max_frame_kinds> control_frames_{};
};

}  // namespace sluice
