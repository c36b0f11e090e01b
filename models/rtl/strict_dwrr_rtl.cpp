#include "models/rtl/strict_dwrr_rtl.h"

#include <sstream>

#include "models/core/event_queue.h"
#include "models/core/units.h"
#include "models/switch/switch_policies.h"

namespace sluice {
namespace {
const policy_registrar<scheduler_policies> reg{
    "strict-dwrr-rtl",
    "strict-dwrr as RTL (rtl/sluice_egress_sched.sv, Verilated), clocked per decision (rtl.check, rtl.clock, "
    "rtl.decision_cycles, rtl.trace)",
    [](const scheduler_config& c, const sc_core::sc_object* port) -> std::unique_ptr<scheduler_if> {
      if (!port) throw config_error("strict-dwrr-rtl: made without a port");
      return std::make_unique<strict_dwrr_rtl>(c, *port);
    },
    {"sched", "weight", "dwrr.quantum"}};

std::string mask_text(uint32_t m) {
  std::ostringstream s;
  s << "0x" << std::hex << m;
  return s.str();
}
}  // namespace

strict_dwrr_rtl::strict_dwrr_rtl(const scheduler_config& c, const sc_core::sc_object& port, sched_rtl_build build)
    : port_(port), build_(build), config_(block_config(c)) {}

sched_block_config strict_dwrr_rtl::block_config(const scheduler_config& c) {
  sched_block_config b;
  for (int q = 0; q < max_classes; ++q) {
    b.strict_mask |= uint32_t{c.strict[q]} << q;
    b.weight[q] = c.weight[q];
  }
  b.quantum = c.quantum;
  return b;
}

void strict_dwrr_rtl::start() {
  const bool lockstep = check_() == "lockstep";
  const sched_rtl_build build =
      build_ == sched_rtl_build::fast && (lockstep || trace_()) ? sched_rtl_build::traced : build_;
  block_ = make_verilated_egress_sched(build);
  block_->configure(config_);
  decision_cycles_ = decision_cycles_param_();
  const uint64_t period = to_ps(clock_());
  if (trace_()) block_->trace_to(std::string(port_.name()) + ".rtl.vcd", period);
  if (lockstep) {
    reference_ = std::make_unique<egress_sched_reference>();
    reference_->configure(config_);
    if (!trace_()) block_->trace_window(100, period);
  }
}

uint64_t strict_dwrr_rtl::decision_latency_ps() const { return decision_cycles_param_() * to_ps(clock_()); }

void strict_dwrr_rtl::reconfigure(const scheduler_config& c) {
  config_.weight = block_config(c).weight;
  config_.quantum = c.quantum;
  if (block_) block_->configure(config_);
  if (reference_) reference_->configure(config_);
}

int strict_dwrr_rtl::select(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) {
  if (!block_) start();
  sched_request r;
  r.head = head_bytes;
  r.eligible = eligible;
  const sched_answer a = block_->call(r, now_ps());
  ++calls_;
  cycles_ += a.cycles;
  if (reference_) {
    const sched_answer ref = reference_->decide(r);
    if (ref != a) mismatch(r, a, ref);
  }
  if (decision_cycles_ && a.cycles > decision_cycles_)
    SC_REPORT_ERROR("sluice/rtl", (std::string(port_.name()) + ": strict-dwrr-rtl took " + std::to_string(a.cycles) +
                                   " cycles, more than rtl.decision_cycles = " + std::to_string(decision_cycles_))
                                      .c_str());
  return a.queue;
}

void strict_dwrr_rtl::mismatch(const sched_request& r, const sched_answer& rtl, const sched_answer& ref) {
  const std::string vcd = std::string(port_.name()) + ".rtl-mismatch.vcd";
  const bool wrote = block_->dump_window(vcd);
  std::ostringstream s;
  s << port_.name() << ": strict-dwrr-rtl lockstep mismatch at " << format_time(from_ps(now_ps())) << " (decision "
    << calls_.value() << "): eligible " << mask_text(r.eligible) << " heads [";
  for (int q = 0; q < max_classes; ++q) s << (q ? " " : "") << r.head[q];
  s << "]: rtl queue " << rtl.queue << " in " << rtl.cycles << " cycles, reference queue " << ref.queue << " in "
    << ref.cycles << " cycles";
  if (wrote) s << "; waveform " << vcd;
  SC_REPORT_ERROR("sluice/rtl", s.str().c_str());
  throw std::logic_error(s.str());  // only if the report's action does not throw
}

}  // namespace sluice
