// The egress side of a switch port: one FIFO per traffic class, a scheduler choosing among the
// classes the flow-control gate lets send, and a congestion-point slot per class that sees every
// data frame enqueued and dequeued. It is the port MAC's frame source.
//
// Frames the switch makes itself (CNMs) are queued like data but carry no_ingress, so they are
// never returned to the MMU. A data frame's buffer is returned when it starts on the wire or,
// with release_at_end, when its last bit has left (real chips differ; see docs/models/switch.md).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <typeinfo>

#include "models/cc/congestion_point.h"
#include "models/core/event_queue.h"
#include "models/core/ring.h"
#include "models/core/segment_queue.h"
#include "models/link/mac_port.h"
#include "models/switch/egress_scheduler.h"
#include "models/switch/queued_frame.h"
#include "models/switch/scheduler_if.h"
#include "models/switch/split_scheduler.h"

namespace sluice {

class pfc;

// A class queue's statistics as the port reports them (egress_port::queue): kept where each
// frame's changes fall (egress_port's class_state) and put together when read.
struct queue_stats {
  uint64_t bytes = 0, frames = 0;  // current depth
  uint64_t max_bytes = 0;
  uint64_t frames_out = 0, bytes_out = 0;
  uint64_t frames_in = 0;  // enqueued (conservation: in = out + queued + dropped)
  // Integral of depth over time, for the mean: exact integers, as the MMU's buffer mean. Kept as
  // the sum of size x time over the bytes that left (and were dropped) less that over the bytes
  // that came, so a change is one product and one add (no time of the last change to read and
  // write); the queued bytes' share is added when read. Wraps modulo 2^128 in between, and the
  // integral itself is far below 2^128 (below 2^64 byte-ps the 80-bit sum of earlier rounds was
  // exact too, so the mean prints the same).
  unsigned __int128 byte_ps = 0;
  uint64_t bytes_in = 0;
  // byte_ps's change for size bytes at now_ps: subtracted as they arrive, added as they leave.
  static unsigned __int128 byte_time(uint32_t size, uint64_t now_ps) {
    return static_cast<unsigned __int128>(size) * now_ps;
  }
  double mean_bytes(uint64_t now_ps) const {
    if (now_ps == 0) return 0;
    const unsigned __int128 total = byte_ps + static_cast<unsigned __int128>(bytes) * now_ps;
    return static_cast<double>(static_cast<long double>(total) / static_cast<long double>(now_ps));
  }
};

// Where a departing data frame's bytes go back (the switch: MMU, then the ingress port's
// flow control), at now_ps, the models' time (the port has read it: the switch's release then
// reads no clock, whose kernel call outside a drain made it save registers at every frame).
class buffer_release_if {
 public:
  virtual ~buffer_release_if() = default;
  virtual void release(int ingress_port, int cls, uint32_t bytes, uint64_t now_ps) = 0;
};

// Aligned: its first line (the interfaces' vtable pointers and the fields every frame reads) is
// one cache line, not two halves of a port's neighbours' (a 1 024-host fabric misses it).
class alignas(64) egress_port : public frame_source_if, public scheduler_answer_if {
 public:
  egress_port(mac_port& mac, flow_control_if& gate, buffer_release_if& buffer, int classes);
  ~egress_port() override;
  egress_port(const egress_port&) = delete;
  egress_port& operator=(const egress_port&) = delete;

  // Appends a frame (h.ready_ps set: when it clears the pipeline) to its class queue.
  void enqueue(tlm::tlm_generic_payload* p) { enqueue(p, now_ps()); }
  // The same, at now_ps, the models' time the caller has read (the switch: one clock read a frame).
  void enqueue(tlm::tlm_generic_payload* p, uint64_t now_ps);
  tlm::tlm_generic_payload* next_frame(uint64_t now_ps, uint64_t& retry_ps) override;
  uint64_t next_ready_ps(uint64_t now_ps) const override;

  void set_scheduler(scheduler_if* s) {
    scheduler_ = s;
    own_scheduler_ = s && typeid(*s) == typeid(egress_scheduler) ? static_cast<egress_scheduler*>(s) : nullptr;
    own_blocks_ = pfc_gate_ && own_scheduler_ && !split_;
  }
  // A split-phase scheduler in place of the scheduler (null: the immediate one). Each decision
  // is asked when the port looks for a frame and the frame leaves when the answer comes.
  void set_split_scheduler(split_scheduler_if* s) {
    split_ = s;
    own_blocks_ = pfc_gate_ && own_scheduler_ && !split_;
  }
  // With a split-phase scheduler: ask for the next decision as each frame starts on the wire
  // (the queues as they are then), so that a decision no longer than the frame costs no time.
  void set_decide_ahead(bool on) { ahead_ = on; }
  // The congestion point of one class (nullptr: none). Not owned.
  void set_congestion_point(int cls, congestion_point_if* cp);
  void set_release_at_end(bool at_end) { release_at_end_ = at_end; }

  int classes() const { return classes_; }
  queue_stats queue(int cls) const;
  // Whether the port asks its PFC gate without virtual calls (it is a pfc, not a subclass); for tests.
  bool asks_pfc_directly() const { return pfc_gate_ != nullptr; }
  // Whether the port's scheduler decides inline (the built-in one, not a subclass); for tests.
  bool asks_scheduler_directly() const { return own_scheduler_ != nullptr; }
  // Frames (and their bytes) the port discarded from its queue: the PFC watchdog's drop action.
  struct discarded {
    uint64_t frames = 0, bytes = 0;
  };
  discarded dropped(int cls) const { return extra_ ? extra_[cls].dropped : discarded{}; }
  // Data frames of a class this port's congestion point marked: ECN CE (CEE) and FECN
  // (InfiniBand), each counted when the mark is set (not for frames marked upstream).
  struct marked {
    uint64_t ecn = 0, fecn = 0;
  };
  marked marks(int cls) const { return extra_ ? extra_[cls].marks : marked{}; }
  // While on, the class queue drops what it holds and whatever arrives (the PFC watchdog's drop
  // action, told through pause_storm_listener).
  void set_discard(int cls, bool on);
  // Whether the class queue holds a frame that arrived on `ingress_port` in class `ingress_cls`:
  // a scan of the queue, for the deadlock detector's wait-for graph (never per frame).
  bool holds_from(int cls, int ingress_port, int ingress_cls) const;

 private:
  friend struct invariant_test_hooks;
  void on_timer();  // end of a frame on the wire: release its buffer (release_at_end)
  queue_view view(int cls, uint64_t now_ps);
  // The head sizes a scheduler is handed (0: an empty class), made from the queues' heads when a
  // decision needs them, not kept in the port: the one-class path reads its head's size from the
  // descriptor it reads anyway, and a frame leaving writes no line of the port's for the next.
  using head_sizes = std::array<uint32_t, max_classes>;
  [[gnu::noinline]] uint64_t next_ready_any(uint64_t now_ps) const;  // next_ready_ps's general path
  [[gnu::noinline]] tlm::tlm_generic_payload* next_frame_any(uint64_t now_ps, uint64_t& retry_ps);  // and next_frame's
  [[gnu::noinline]] tlm::tlm_generic_payload* take(int q, uint64_t now_ps);  // the head of q leaves
  bool may_send(int cls, uint32_t bytes, uint64_t now_ps) const;
  // may_send with pfc_gate_ set: while nothing is paused, from the MAC's copy of when our PFC's
  // pauses end (in the line of the transmit decision that asks us), no line of the PFC's.
  bool pfc_lets(int cls, uint64_t now_ps) const;
  uint64_t refused(int q, const queued_frame& h, uint64_t now_ps);
  [[gnu::noinline]] void keep_payload(tlm::tlm_generic_payload* p, queued_frame& e);
  [[gnu::noinline]] void enqueue_seen(packet_header& h);
  [[gnu::noinline]] void dequeue_seen(packet_header& h, int q, uint64_t now_ps);
  void publish_mark(const packet_header& h, uint16_t before) const;
  void count_marks(const packet_header& h, uint16_t before);
  // The split-phase decision: the answered queue, or awaiting_answer (the answer kicks the MAC).
  static constexpr int awaiting_answer = -2;
  int split_decision(const head_sizes& heads, uint32_t eligible);
  void request_decision(const head_sizes& heads, uint32_t eligible);  // unless one is outstanding or answered
  void decide_ahead(uint64_t now_ps);
  void scheduled(int queue) override;
  void discard(int cls, const frame_fields& f);  // counts and returns the buffer of a dropped frame

  // Read by every enqueue and transmit decision: in the port's first cache line with the vtable
  // pointer the MAC's call reads (48 bytes after it; what is not read per frame is further down).
  struct class_state;
  // As many as the port has classes (see class_state), in the line arena: new[] would put a
  // 64-byte count before them (line_arena.h).
  class_state* class_;
  mac_port& mac_;
  // gate_ when it is our PFC itself, not a subclass (a switch port's on CEE): its pause test
  // inline, not a virtual call per class and transmit decision.
  const pfc* pfc_gate_;
  // scheduler_ when it is the built-in strict-DWRR one itself (not a subclass or an RTL twin):
  // its choice inline, not a virtual call per frame.
  egress_scheduler* own_scheduler_ = nullptr;
  buffer_release_if& buffer_;
  // Kept in step with the queues so that choosing a frame visits only the non-empty classes (a
  // bit per class: max_classes is 16).
  uint16_t nonempty_ = 0;
  uint16_t discard_ = 0;  // classes whose frames are dropped (PFC watchdog)
  // Classes with a congestion point: a frame tests its bit here, not the class's pointer (in the
  // class's second line, which a frame leaving does not touch).
  uint16_t cp_ = 0;
  uint8_t classes_;
  // Bits, so that cp_ fits the line. pfc_gate_ and own_scheduler_ set, split_ not: next_frame's
  // one-class path tests one flag, not three.
  bool own_blocks_ : 1;
  bool release_at_end_ : 1;
  bool ahead_ : 1;  // set_decide_ahead
  // The rest is read only off the one-class path, or never per frame.
  flow_control_if& gate_;
  scheduler_if* scheduler_ = nullptr;
  split_scheduler_if* split_ = nullptr;
  // A queued frame is a descriptor (queued_frame: its fields in 32 bytes) and a data frame's
  // payload goes back to the pool: a congested fabric holds millions of queued frames, and
  // scheduling reads only the queue's own memory. Frames with a wire image (switch-made and
  // feedback frames) and the rare frame whose fields the descriptor cannot hold keep their
  // payload, in a queue of their own per class beside the descriptors (flag
  // frame_flags::kept_payload), so that a descriptor needs no pointer.
  // One class's queue, congestion point and statistics (queue_stats's fields; its frames are the
  // queue's size) in two cache lines of their own: a frame leaving touches only the first, an
  // arrival both (and the port's line above). What few frames touch is in class_extra below.
  struct alignas(64) class_state {
    // In segments, not a ring: no copy as a deep queue climbs, and a segment a head has emptied
    // goes to the next tail that needs one while it is cached. 24 bytes, so that the line holds the rest.
    segment_queue<queued_frame> queue;
    uint64_t bytes = 0;
    unsigned __int128 byte_ps = 0;
    uint64_t frames_out = 0, bytes_out = 0;
    // Written by an arrival only (the counts apart: side by side, the compiler adds them as one
    // vector, four instructions more a frame).
    uint64_t frames_in = 0, max_bytes = 0, bytes_in = 0;
    congestion_point_if* cp = nullptr;  // not owned; its class's bit in cp_
    // The first ready_n frames of the queue have cleared the pipeline (ready_bytes of them; the
    // last of them in ready_last, from which the count goes on: a queue in segments is not
    // indexed); advanced lazily, only for a congestion point's view (amortised O(1) per frame),
    // and kept while the class has one.
    std::size_t ready_n = 0;
    uint64_t ready_bytes = 0;
    const queued_frame* ready_last = nullptr;
  };
  static_assert(sizeof(class_state) == 128, "a class state is two cache lines (the per-frame fields)");
  // Per class, made at the first frame that needs one (most ports of a fabric never do): the
  // payloads of the queued frames flagged kept_payload, in queue order; the frames the PFC
  // watchdog dropped; the marks of a congestion point. Not a third line in every class state: a
  // port's eight are 512 bytes fewer (24 MiB of the k = 34 fat tree's 49 130 ports).
  struct class_extra {
    ring<tlm::tlm_generic_payload*> kept;
    discarded dropped;
    marked marks;
  };
  std::unique_ptr<class_extra[]> extra_;  // one per class
  class_extra& extra(int cls);
  struct in_flight {
    uint64_t end_ps;
    uint16_t ingress_port;
    uint8_t cls;
    uint32_t bytes;
  };
  ring<in_flight> leaving_;  // release_at_end: frames on the wire, oldest first
  // Split-phase scheduling: a request is out; its answer is in (and which queue); inside request().
  bool asking_ = false, answered_ = false, requesting_ = false;
  int answer_ = -1;
  // release_at_end's wake-ups: a member, not a base, so that its fields (no frame reads them)
  // are not in the port's first line.
  struct end_timer final : timed_client {
    explicit end_timer(egress_port& p) : port(p) {}
    void on_timer() override { port.on_timer(); }
    egress_port& port;
  };
  end_timer timer_{*this};
};

}  // namespace sluice
