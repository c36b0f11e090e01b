// Egress scheduler "strict-dwrr-rtl": the RTL egress scheduler (rtl/sluice_egress_sched.sv,
// Verilated) in place of the C++ strict-dwrr, one call per dequeue decision. Its parameters,
// under the port:
//   rtl.check            off | lockstep: every call also goes to the C++ fixed-point reference
//                        and the first differing answer stops the run (docs/rtl.md)
//   rtl.clock            the block's clock period
//   rtl.decision_cycles  the decision latency in cycles (0: none); the port then answers through
//                        the split-phase seam, decision_cycles x clock after it asked
//   rtl.trace            a VCD of the whole run, <port>.rtl.vcd in the working directory
#pragma once
#include <memory>
#include <string>

#include "models/core/params.h"
#include "models/core/stats.h"
#include "models/rtl/sched_block.h"
#include "models/switch/egress_scheduler.h"

namespace sluice {

class strict_dwrr_rtl final : public scheduler_if {
 public:
  // `port` owns the parameters and names the instance; `build` is the Verilated build
  // (tests choose the mutant).
  strict_dwrr_rtl(const scheduler_config& c, const sc_core::sc_object& port,
                  sched_rtl_build build = sched_rtl_build::fast);
  int select(const std::array<uint32_t, max_classes>& head_bytes, uint32_t eligible) override;
  void reconfigure(const scheduler_config& c) override;
  uint64_t decision_latency_ps() const override;
  // Decisions so far and the clock cycles they took.
  uint64_t calls() const { return calls_.value(); }
  uint64_t cycles() const { return cycles_.value(); }

 private:
  void start();  // the block, once the parameters are final (the first call)
  [[noreturn]] void mismatch(const sched_request& r, const sched_answer& rtl, const sched_answer& ref);
  static sched_block_config block_config(const scheduler_config& c);

  const sc_core::sc_object& port_;
  sched_rtl_build build_;
  sched_block_config config_;
  std::unique_ptr<sched_block> block_;
  std::unique_ptr<egress_sched_reference> reference_;  // lockstep only
  uint64_t decision_cycles_ = 0;
  stat_counter calls_{
      &port_, nullptr, [] {
        return stat_desc{"rtl_decisions", "calls", "strict-dwrr-rtl: decisions the RTL block took", nullptr};
      }};
  stat_counter cycles_{
      &port_, nullptr, [] {
        return stat_desc{"rtl_cycles", "cycles", "strict-dwrr-rtl: clock cycles the decisions took", nullptr};
      }};
  choice_param check_{&port_, [] {
                        return choice_spec{"rtl.check",
                                           "strict-dwrr-rtl: off, or lockstep (every decision also taken by the "
                                           "C++ fixed-point reference; the first difference stops the run and "
                                           "writes a VCD of the block's last ~100 cycles)",
                                           "off",
                                           {"off", "lockstep"}};
                      }};
  param<sc_core::sc_time> clock_{&port_, [] {
                                   return param_spec<sc_core::sc_time>{
                                       "rtl.clock", "strict-dwrr-rtl: the block's clock period",
                                       sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(1, sc_core::SC_PS),
                                       sc_core::sc_time(1, sc_core::SC_US)};
                                 }};
  param<uint64_t> decision_cycles_param_{
      &port_, [] {
        return param_spec<uint64_t>{"rtl.decision_cycles",
                                    "strict-dwrr-rtl: clock cycles from the port's request to the decision (0: "
                                    "no added latency); a decision that takes the block more cycles is an error",
                                    0, 0, sched_max_cycles};
      }};
  param<bool> trace_{&port_, [] {
                       return param_spec<bool>{"rtl.trace",
                                               "strict-dwrr-rtl: write the block's waveforms, <port>.rtl.vcd, in ps",
                                               false, false, true};
                     }};
};

}  // namespace sluice
