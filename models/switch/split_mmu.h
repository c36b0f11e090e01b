// The split-phase form of the MMU's admission decision: asked now, answered later, so that a
// buffer manager that needs cycles (a Verilated one) or service time (firmware) can sit where
// mmu_if::admit does. The zero-latency mmu_if stays the fast path; release, the pause queries
// and the statistics stay on mmu_if (immediate) either way.
#pragma once
#include <cstdint>

#include "models/core/event_queue.h"
#include "models/core/packet.h"
#include "models/core/ring.h"
#include "models/switch/mmu_if.h"

namespace sluice {

// Where a split-phase MMU answers: the switch. The verdict on a frame it asked about, at the
// model time the decision is taken: admitted (its bytes are charged to its group from now on) or
// refused, and whether its group must now be paused (also when this frame is refused).
class admission_answer_if {
 public:
  virtual ~admission_answer_if() = default;
  virtual void admitted(tlm::tlm_generic_payload* frame, bool admitted, bool xoff_due) = 0;
};

class split_mmu_if {
 public:
  virtual ~split_mmu_if() = default;
  // The frame (its header's priority and size) arrived complete on `port` and waits at ingress,
  // charged to nothing, until the answer. The answer may come from inside this call or later;
  // several may be outstanding and may be answered in any order. A frame is answered exactly
  // once: the switch counts and frees a refused one, so nothing is lost uncounted.
  virtual void request(tlm::tlm_generic_payload* frame, int port, admission_answer_if& to) = 0;
};

// An mmu_if whose admission decisions take a fixed latency, in arrival order: each frame is
// decided `latency_ps` after it arrived, against the buffer as it is then (releases in between
// count), as a pipelined buffer manager reads and updates its counters in its last stage.
// `<sw>.admission_latency` puts one in front of the switch's MMU; tests use it as the stand-in
// for an RTL buffer manager.
class latency_mmu : public split_mmu_if, public timed_client {
 public:
  latency_mmu(mmu_if& inner, uint64_t latency_ps) : inner_(inner), latency_ps_(latency_ps) {}
  void request(tlm::tlm_generic_payload* frame, int port, admission_answer_if& to) override {
    if (latency_ps_ == 0) return decide({0, frame, port}, to);
    to_ = &to;
    waiting_.push_back({now_ps() + latency_ps_, frame, port});
    if (waiting_.size() == 1) event_queue::instance().schedule(this, waiting_.front().at_ps);
  }
  size_t waiting() const { return waiting_.size(); }

 private:
  struct asked {
    uint64_t at_ps;
    tlm::tlm_generic_payload* frame;
    int port;
  };
  void decide(const asked& a, admission_answer_if& to) {
    const packet_header& h = header(*a.frame);
    bool xoff_due = false;
    const bool ok = inner_.admit(a.port, h.priority, h.size, xoff_due);
    to.admitted(a.frame, ok, xoff_due);
  }
  void on_timer() override {
    const uint64_t now = now_ps();
    while (!waiting_.empty() && waiting_.front().at_ps <= now) decide(waiting_.pop_front(), *to_);
    if (!waiting_.empty()) event_queue::instance().schedule(this, waiting_.front().at_ps);
  }
  mmu_if& inner_;
  uint64_t latency_ps_;
  admission_answer_if* to_ = nullptr;
  ring<asked> waiting_{4};
};

}  // namespace sluice
