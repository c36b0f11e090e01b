// A device's interrupt (docs/cosimulation.md#interrupts): the OR of its INT_STATUS flags that
// INT_ENABLE enables, raised to one sink (the device's firmware, as an IRQ event) on its
// rising edge, `<dev>.regs.irq_latency` cycles of `<dev>.regs.clock` after the cause.
//
// Edge-triggered, as a message-signalled interrupt: the line is raised when (status & enable)
// goes from 0 to non-zero, and stays raised (no further interrupt) until an access leaves it 0
// (the handler clears the flags it served, write 1 to clear, or masks them). A cause the
// enable does not cover still sets its flag; enabling it later raises the line then.
//
// Nothing runs until a sink connects and an enable bit is set: then the line watches the
// device's probe points that move its status flags (a NIC: frames arriving at its port; a
// switch: frames leaving, drops, pause storms), and looks at the status after each, at the same
// simulated time. A run without interrupts runs no new code.
#pragma once
#include <cstdint>
#include <functional>

#include "models/core/event_queue.h"

namespace sluice::regs {

class register_target;

class interrupt_line {
 public:
  // `cause`: the INT_STATUS bits set and enabled when the line was raised; `raised_ps`: when.
  using sink = std::function<void(uint32_t cause, uint64_t raised_ps)>;
  explicit interrupt_line(register_target& target) : target_(target), look_(*this), raise_(*this) {}
  // One sink per device. From then on, every access through the bank re-evaluates the line.
  void connect(sink s);
  bool connected() const { return static_cast<bool>(sink_); }
  // (INT_STATUS & INT_ENABLE) now, read without side effects.
  uint32_t pending();
  uint64_t interrupts() const { return interrupts_; }

 private:
  struct looker final : timed_client {  // a cause may have moved a flag: look at the same time
    interrupt_line& line;
    explicit looker(interrupt_line& l) : line(l) {}
    void on_timer() override { line.evaluate(); }
  };
  struct raiser final : timed_client {  // the latency after the edge: deliver
    interrupt_line& line;
    explicit raiser(interrupt_line& l) : line(l) {}
    void on_timer() override { line.deliver(); }
  };
  uint32_t pending(uint32_t& enable);
  uint64_t latency_ps() const;
  void evaluate();
  void deliver();
  void watch();  // subscribe to the device's probe points, once

  register_target& target_;
  sink sink_;
  looker look_;
  raiser raise_;
  uint32_t status_address_ = 0, enable_address_ = 0;
  bool raised_ = false, watching_ = false;
  uint64_t raised_ps_ = 0, interrupts_ = 0;
};

}  // namespace sluice::regs
