// The transaction wrapper around the Verilated egress scheduler (--cc): clocked inside call(),
// one rising edge at a time, until the block raises valid. Verilator's headers come first, before
// anything that includes <systemc> (docs/rtl.md, pitfalls).
#include "models/rtl/verilated_clocking.h"
// (Verilator's headers first.)
#include "Vegress_sched.h"
#include "Vegress_sched_mutant.h"
#include "Vegress_sched_traced.h"
#include "models/rtl/sched_block.h"

namespace sluice {
namespace {

template <class Model, bool Traced>
class verilated_sched final : public clocked_block<sched_block, Model, Traced> {
 public:
  verilated_sched() : clocked_block<sched_block, Model, Traced>("sched", "egress scheduler") {}

  void configure(const sched_block_config& c) override {
    Model& m = this->model();
    m.strict_mask = static_cast<uint16_t>(c.strict_mask);
    for (int q = 0; q < max_classes; ++q) m.weight[q] = c.weight[q] & sched_widths::mask(sched_widths::weight);
    m.quantum = c.quantum & sched_widths::mask(sched_widths::quantum);
  }

  sched_answer call(const sched_request& r, uint64_t t_ps) override {
    Model& m = this->model();
    for (int q = 0; q < max_classes; ++q) m.head_bytes[q] = static_cast<uint16_t>(r.head[q]);
    m.eligible = static_cast<uint16_t>(r.eligible);
    const uint32_t cycles = this->transact(t_ps, sched_max_cycles);
    return {m.chosen ? static_cast<int>(m.served) : -1, cycles};
  }
};

}  // namespace

std::unique_ptr<sched_block> make_verilated_egress_sched(sched_rtl_build build) {
  switch (build) {
    case sched_rtl_build::traced:
      return std::make_unique<verilated_sched<Vegress_sched_traced, true>>();
    case sched_rtl_build::mutant:
      return std::make_unique<verilated_sched<Vegress_sched_mutant, true>>();
    case sched_rtl_build::fast:
      break;
  }
  return std::make_unique<verilated_sched<Vegress_sched, false>>();
}

}  // namespace sluice
