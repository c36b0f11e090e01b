#include "models/regs/interrupt_line.h"

#include "models/core/probe.h"
#include "models/regs/register_target.h"

namespace sluice::regs {

void interrupt_line::connect(sink s) {
  if (sink_) throw config_error(std::string(target_.name()) + ": the interrupt already has a sink");
  sink_ = std::move(s);
  register_bank& bank = target_.bank();
  status_address_ = bank.address_of("INT_STATUS");
  enable_address_ = bank.address_of("INT_ENABLE");
  bank.after_write([this] { evaluate(); });
}

uint32_t interrupt_line::pending() {
  uint32_t enable = 0;
  return pending(enable);
}

uint32_t interrupt_line::pending(uint32_t& enable) {
  register_bank& bank = target_.bank();
  uint32_t status = 0;
  bank.read(enable_address_, enable, true);
  if (!enable) return 0;
  bank.read(status_address_, status, true);
  return status & enable;
}

uint64_t interrupt_line::latency_ps() const { return to_ps(target_.clock()) * target_.irq_latency(); }

// After anything that may have moved a flag or an enable bit, at the models' time.
void interrupt_line::evaluate() {
  uint32_t enable = 0;
  const uint32_t cause = pending(enable);
  if (enable) watch();
  if (!cause) {
    raised_ = false;
    return;
  }
  if (raised_) return;
  raised_ = true;
  raised_ps_ = now_ps();
  event_queue::instance().schedule(&raise_, raised_ps_ + latency_ps());
}

void interrupt_line::deliver() {
  if (!raised_) return;                        // cleared or masked during the latency: nothing to signal
  if (now_ps() < raised_ps_ + latency_ps()) {  // cleared and raised again within the latency
    event_queue::instance().schedule(&raise_, raised_ps_ + latency_ps());
    return;
  }
  const uint32_t cause = pending();
  if (!cause) {
    raised_ = false;
    return;
  }
  ++interrupts_;
  sink_(cause, raised_ps_);
}

void interrupt_line::watch() {
  if (watching_) return;
  watching_ = true;
  for (const std::string& pattern : target_.device().interrupt_triggers(target_.get_parent_object()->name()))
    probe_registry::instance().subscribe(
        pattern,
        [this](const probe_point&, const probe_event&) {
          // The probe fires before the model counts the event: look once it has, at this time.
          if (!raised_ && !look_.timer_pending()) event_queue::instance().schedule(&look_, now_ps());
        },
        std::string(target_.name()) + ".irq");
}

}  // namespace sluice::regs
