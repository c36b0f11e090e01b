// A signal a model raises for foreign SystemC processes (a test bench, an RTL block, firmware):
// an sc_event notified at the model time of its cause.
//
// Raised inside the event queue's drain, where the models' clock runs ahead of the kernel, the
// event is notified with the delay model time - kernel time (ahead()) and the drain ends after
// the current wake-up (event_queue::sync), so a process sensitive to it runs at exactly that
// time and sees the models as they were then, not as they are later in the drain. The event
// exists only once a listener has asked for it: a signal nobody listens to costs one branch.
#pragma once
#include <memory>
#include <systemc>

namespace sluice {

class model_signal {
 public:
  // The event to be sensitive to, made on the first call (during elaboration).
  const sc_core::sc_event& event();
  bool listened() const { return event_ != nullptr; }
  void raise() {
    if (event_) notify();
  }

 private:
  void notify();
  std::unique_ptr<sc_core::sc_event> event_;
};

}  // namespace sluice
