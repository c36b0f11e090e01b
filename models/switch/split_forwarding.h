// The split-phase form of forwarding: a lookup asked now and answered later, so that a block
// that needs cycles (a Verilated lookup pipeline) or service time (firmware, a slow path) can sit
// where forwarding_if does. The zero-latency forwarding_if stays the fast path.
#pragma once
#include <cstdint>

#include "models/core/event_queue.h"
#include "models/core/ring.h"
#include "models/switch/forwarding_if.h"

namespace sluice {

// Where a split-phase forwarding block answers: the switch. It takes the frame back with its
// output port (-1: no route) at the model time the lookup is done.
class route_answer_if {
 public:
  virtual ~route_answer_if() = default;
  virtual void routed(tlm::tlm_generic_payload* frame, int out_port) = 0;
};

class split_forwarding_if {
 public:
  virtual ~split_forwarding_if() = default;
  // The frame has been admitted by the MMU (its bytes are charged to its ingress group while it
  // waits). The answer may come from inside this call or later; several may be outstanding and
  // may be answered in any order.
  virtual void request(tlm::tlm_generic_payload* frame, int in_port, route_answer_if& to) = 0;
};

// A forwarding_if whose answers take a fixed latency, in arrival order: the lookup is made when
// asked, the frame handed back `latency_ps` later. `<sw>.forwarding_latency` puts one in front of
// the switch's forwarding block; tests use it as the stand-in for an RTL lookup.
class latency_forwarding : public split_forwarding_if, public timed_client {
 public:
  latency_forwarding(const forwarding_if& inner, uint64_t latency_ps) : inner_(inner), latency_ps_(latency_ps) {}
  void request(tlm::tlm_generic_payload* frame, int in_port, route_answer_if& to) override {
    const int out = inner_.route(header(*frame), in_port);
    if (latency_ps_ == 0) return to.routed(frame, out);
    to_ = &to;
    waiting_.push_back({now_ps() + latency_ps_, frame, out});
    if (waiting_.size() == 1) event_queue::instance().schedule(this, waiting_.front().at_ps);
  }

 private:
  void on_timer() override {
    const uint64_t now = now_ps();
    while (!waiting_.empty() && waiting_.front().at_ps <= now) {
      lookup l = waiting_.pop_front();
      to_->routed(l.frame, l.out);
    }
    if (!waiting_.empty()) event_queue::instance().schedule(this, waiting_.front().at_ps);
  }
  struct lookup {
    uint64_t at_ps;
    tlm::tlm_generic_payload* frame;
    int out;
  };
  const forwarding_if& inner_;
  uint64_t latency_ps_;
  route_answer_if* to_ = nullptr;
  ring<lookup> waiting_{4};
};

}  // namespace sluice
