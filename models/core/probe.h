// Probe points: named events the datapath publishes (a frame starts on the wire, joins or leaves
// an egress queue, is dropped or marked; a class is paused; a reaction point changes its rate),
// for subscribers that attach by name pattern: a frame tracer, the sampler, later a pcap writer,
// a VCD tracer or an adaptive router.
//
// A model publishes with one line,
//
//     if (probes::tx_start.on()) probes::tx_start.publish(this, {now, &h.fields(), index_, h.priority, h.size});
//
// The kind is a global object, so with nothing subscribed to it anywhere `on()` is one load
// from a line every frame already touches and one predictable branch; the event is built only
// inside the branch. Models keep no per-instance probe state (their hot cache lines are
// unchanged): a point is the pair (kind, source object), declared once at elaboration so it can
// be listed and matched by name, and the subscribers of a kind are looked up by source only
// when that kind has any.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/core/packet.h"

namespace sc_core {
class sc_object;
}

namespace sluice {

// What a point reports. Fields a point does not use are -1 (port, cls), null (frame) or 0.
struct probe_event {
  uint64_t time_ps = 0;                 // the models' time of the event (now_ps(), or the effective time)
  const frame_fields* frame = nullptr;  // the frame concerned (its id, kind, flow, size ...), if any
  int32_t port = -1;                    // the port index within its switch or NIC
  int32_t cls = -1;                     // the traffic class (priority, or VL)
  uint64_t value = 0;                   // point-specific, see the kind's `value` text
  uint32_t flow_id = UINT32_MAX;        // the flow concerned when there is no frame (rate_change)
  const frame_image* image = nullptr;   // tx_start, rx_end: a control frame's wire image (null: data)
};

class probe_kind;

// One declared point: a kind published by one source object, named
// <owner>[.<scope>].<kind leaf> ("sw0.port3.egress.dequeue").
struct probe_point {
  const probe_kind* kind;
  const void* source;
  const sc_core::sc_object* owner;
  const char* scope;
  std::string name() const;
};

using probe_handler = std::function<void(const probe_point&, const probe_event&)>;

// A kind of event. Define each as a global (see probes:: below); it registers itself.
class probe_kind {
 public:
  probe_kind(const char* leaf, const char* description, const char* value_meaning);
  probe_kind(const probe_kind&) = delete;
  probe_kind& operator=(const probe_kind&) = delete;

  // True while any point of this kind has a subscriber.
  bool on() const { return subscribed_ != 0; }
  // Delivers e to the subscribers of (this kind, source), if any. Call only when on().
  void publish(const void* source, const probe_event& e) const;
  // The same, out of line and built from its fields: a publish site in a hot function then
  // adds only the on() test to it, not the event's stack frame (measured: 8 instructions).
  [[gnu::noinline, gnu::cold]] void emit(const void* source, uint64_t time_ps, const frame_fields* frame, int port,
                                         int cls, uint64_t value) const;

  // The same for a whole frame at a MAC (tx_start, rx_end): its fields, class, size and image.
  [[gnu::noinline, gnu::cold]] void emit_frame(const void* source, uint64_t time_ps, const packet_header& h,
                                               int port) const;

  const char* leaf() const { return leaf_; }
  const char* description() const { return description_; }
  const char* value_meaning() const { return value_; }

 private:
  friend class probe_registry;
  struct subscription {
    const probe_point* point;
    probe_handler handler;
  };
  uint32_t subscribed_ = 0;
  const char* leaf_;
  const char* description_;
  const char* value_;
  std::unordered_map<const void*, std::vector<subscription>> by_source_;
};

// Every declared point of the simulation being built (one per process, like the parameters).
class probe_registry {
 public:
  static probe_registry& instance();
  // A model declares each point it publishes, once, at elaboration. scope may be null.
  void declare(const probe_kind& kind, const void* source, const sc_core::sc_object* owner,
               const char* scope = nullptr);
  // Attaches h to every point whose name matches the glob (* and ?); returns how many. Throws
  // config_error "<key>: '<pattern>' matches no probe point" when none match.
  std::size_t subscribe(const std::string& pattern, probe_handler h, const std::string& key = "probe");
  // Detaches every subscriber (tests; a run's end).
  void clear_subscriptions();
  // Every declared point, sorted by name, filtered by a glob ("*": all).
  std::vector<const probe_point*> points(const std::string& pattern = "*") const;
  const std::vector<const probe_kind*>& kinds() const { return kinds_; }

 private:
  friend class probe_kind;
  std::vector<const probe_kind*> kinds_;
  std::deque<probe_point> points_;  // stable addresses: subscriptions point into it
};

// The kinds the models publish. `value` is what probe_event::value carries.
namespace probes {
extern probe_kind tx_start;           // mac: a frame's first bit leaves
extern probe_kind rx_end;             // mac: a frame's last bit arrived
extern probe_kind enqueue;            // egress: a frame joined a class queue
extern probe_kind dequeue;            // egress: a frame left a class queue for the wire
extern probe_kind mark;               // egress: a congestion point marked a frame (ECN, FECN, TCD UE)
extern probe_kind drop;               // switch port: a frame that arrived here was dropped
extern probe_kind pause_on;           // flow control: a class's transmitter was paused
extern probe_kind pause_off;          // flow control: a class's transmitter resumed
extern probe_kind credit_starved;     // credits: a VL's head frame waits for credit
extern probe_kind credit_resumed;     // credits: that wait ended
extern probe_kind feedback_sent;      // a CP or NP sent a feedback frame (CNM, CNP, ACK, BECN)
extern probe_kind feedback_received;  // a NIC received feedback about one of its flows
extern probe_kind rate_change;        // a flow's rate limit changed
}  // namespace probes

}  // namespace sluice
