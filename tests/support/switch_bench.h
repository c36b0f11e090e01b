// Test blocks for switch and NIC slots: an MMU that records what it is asked (and forwards to
// the default), a congestion point, a notification point and a reaction point that record
// what they see. Used with the one_switch / two_nics scenarios of harness.h.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "models/cc/congestion_point.h"
#include "models/cc/notification_point.h"
#include "models/cc/reaction_point.h"
#include "models/protocol/ethernet.h"
#include "models/switch/forwarding_if.h"
#include "models/switch/mmu_if.h"
#include "models/switch/scheduler_if.h"
#include "tests/support/harness.h"

namespace sluice::test {

// An owner module for a congestion point made by name outside a switch, and an injector that
// keeps the frames it is given (for the test to decode and release).
struct cp_owner : sc_core::sc_module {
  explicit cp_owner(sc_core::sc_module_name n) : sc_module(n) {}
};
struct recording_injector : frame_injector_if {
  std::vector<tlm::tlm_generic_payload*> frames;
  void inject(tlm::tlm_generic_payload* p) override { frames.push_back(p); }
  uint32_t node_id() const override { return 7; }
};
// What the congestion-point tests sample: a 1500-B data frame of flow 11 from node 3 to node 5
// on priority 3, at a 60 000-B class-3 queue of port 2 (MAC of switch 9, port 2).
inline packet_header sampled_data_frame() {
  packet_header data;
  data.kind = frame_kind::data;
  data.priority = 3;
  data.src = 3;
  data.dst = 5;
  data.flow_id = 11;
  data.size = 1500;
  return data;
}
inline queue_view sampled_queue() { return {2, 3, 60000, 40, eth::mac_address(9, 2)}; }

struct mmu_event {
  uint64_t at_ps;
  int port, cls;
  uint32_t bytes;
};

// A replacement MMU: records admissions and releases and forwards them to `inner`. If
// `reported` is set, usage() answers it instead (a marker a report must show).
struct counting_mmu : mmu_if {
  mmu_if& inner;
  std::vector<mmu_event> admits, releases;
  std::optional<pg_usage> reported;
  explicit counting_mmu(mmu_if& m) : inner(m) {}
  bool admit(int port, int prio, uint32_t bytes, bool& xoff_due) override {
    admits.push_back({now_ps(), port, prio, bytes});
    return inner.admit(port, prio, bytes, xoff_due);
  }
  void release(int port, int prio, uint32_t bytes) override {
    releases.push_back({now_ps(), port, prio, bytes});
    inner.release(port, prio, bytes);
  }
  void set_listener(resume_listener* l) override { inner.set_listener(l); }
  bool pg_paused(int port, int prio) const override { return inner.pg_paused(port, prio); }
  bool try_resume(int port, int prio) override { return inner.try_resume(port, prio); }
  pg_usage usage(int port, int prio) const override { return reported ? *reported : inner.usage(port, prio); }
  // Configuration: the inner MMU's unless a marker is set.
  std::optional<uint64_t> reported_headroom;
  bool is_lossless(int prio) const override { return inner.is_lossless(prio); }
  uint64_t headroom_bytes(int port, int prio) const override {
    return reported_headroom ? *reported_headroom : inner.headroom_bytes(port, prio);
  }
  uint64_t bytes(const std::vector<mmu_event>& events) const {
    uint64_t n = 0;
    for (const mmu_event& e : events) n += e.bytes;
    return n;
  }
};

// What a slot saw of one frame.
struct seen_frame {
  uint64_t at_ps;
  frame_kind kind;
  uint32_t flow_id;
  uint8_t ecn;
  uint64_t queue_bytes = 0;  // congestion point: the queue after the change, past the pipeline
  uint32_t queue_frames = 0;
  uint64_t held_bytes = 0;  // the queue's bytes with those still in the pipeline
};

// A congestion point that records every enqueue and dequeue, marks CE on dequeue, and runs
// optional hooks (to emit frames of its own).
struct recording_cp : congestion_point_if {
  std::vector<seen_frame> enqueued, dequeued;
  std::function<void(packet_header&)> on_enq, on_deq;
  void on_enqueue(packet_header& h, const queue_view& q) override {
    enqueued.push_back({now_ps(), h.kind, h.flow_id, h.ecn, q.bytes, q.frames, q.held_bytes});
    if (on_enq) on_enq(h);
  }
  void on_dequeue(packet_header& h, const queue_view& q) override {
    h.ecn = 3;  // CE
    dequeued.push_back({now_ps(), h.kind, h.flow_id, h.ecn, q.bytes, q.frames, q.held_bytes});
    if (on_deq) on_deq(h);
  }
};

struct recording_np : notification_point_if {
  std::vector<seen_frame> data;
  void on_data(const packet_header& h, uint64_t now) override { data.push_back({now, h.kind, h.flow_id, h.ecn}); }
};

struct recording_rp : reaction_point_if {
  std::vector<seen_frame> feedback, sent;
  void on_feedback(const packet_header& h, uint64_t now) override {
    feedback.push_back({now, h.kind, h.flow_id, h.ecn});
  }
  void on_send(const packet_header& h, uint64_t now) override { sent.push_back({now, h.kind, h.flow_id, h.ecn}); }
};

// A 64-byte frame of `kind` made by a switch toward node `dst` about `flow` (a CNM's shape).
inline tlm::tlm_generic_payload* switch_frame(frame_kind kind, uint32_t from, uint32_t dst, uint32_t flow,
                                              uint8_t cls) {
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire(true);  // control frames carry an image
  packet_header& h = header(*p);
  h.kind = kind;
  h.priority = cls;
  h.src = from;
  h.dst = dst;
  h.flow_id = flow;
  h.size = 64;
  h.created_ps = now_ps();
  return p;
}

// The index of `sw`'s port toward `peer`.
inline int port_toward(const fabric& f, const std::string& sw, const std::string& peer, int ports) {
  for (int i = 0; i < ports; ++i)
    if (f.peer_of(sw, i) == peer) return i;
  ADD_FAILURE() << sw << " has no port toward " << peer;
  return 0;
}

}  // namespace sluice::test
