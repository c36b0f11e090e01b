// Reaction point "dcqcn-rtl": DCQCN with each flow's rate machine in the RTL block
// (rtl/sluice_dcqcn_rp.sv, Verilated): the built-in's parameters (rp.*) and timing
// (dcqcn_rp_timing), the fixed-point arithmetic of the block. One block per NIC, as one engine of
// a NIC serves its flows (Tonic); each flow keeps its own context (76 bits), passed in and out at
// every event. Its parameters, under the NIC:
//   rtl.check   off | lockstep: every event also goes to the C++ fixed-point reference and the
//               first differing answer stops the run (docs/rtl.md)
//   rtl.clock   the block's clock period (the latency's unit, waveform time stamps)
//   rtl.latency none: a new rate takes effect at its event; cycles: the NIC's one block serves
//               events one at a time, each for the cycles it takes at rtl.clock, and a new rate
//               reaches the flow's limiter when its last event is answered (split_rate_update)
//   rtl.trace   a VCD of the whole run, <nic>.rtl.vcd in the working directory
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/cc/dcqcn/dcqcn_rp_policy.h"
#include "models/cc/split_rate_update.h"
#include "models/core/stats.h"
#include "models/rtl/rp_block.h"

namespace sluice {

class dcqcn_rtl_maker final : public dcqcn_rp_maker {
 public:
  // `build`: the Verilated build (tests choose the mutant).
  dcqcn_rtl_maker(const sc_core::sc_object& nic, const mac_port& mac, rp_rtl_build build = rp_rtl_build::fast);
  std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) override;
  // The new context, and when the block answers (0: at once, rtl.latency none or uncharged).
  struct step {
    rp_context ctx;
    uint64_t ready_ps;
  };
  // One event of the flow `flow_label` through the block (and the reference, in lockstep).
  // `charged`: the event occupies the block now (not an alpha period caught up from the past).
  step update(rp_event e, const rp_context& x, const dcqcn_rp_config& c, const std::string& flow_label,
              bool charged = true) const;

 private:
  void start() const;  // the block, once the parameters are final (the first event)
  [[noreturn]] void mismatch(rp_event e, const rp_context& x, const std::string& flow_label, const rp_answer& rtl,
                             const rp_answer& ref) const;

  const sc_core::sc_object& nic_;
  rp_rtl_build build_;
  mutable std::unique_ptr<rp_block> block_;
  mutable rp_block_config fixed_;
  mutable bool lockstep_ = false;
  mutable uint64_t period_ps_ = 0;                           // rtl.clock; 0: rtl.latency none
  mutable uint64_t busy_until_ = 0;                          // the block answers its last charged event then
  std::vector<std::unique_ptr<split_rate_update>> updates_;  // one per flow: the seam to its limiter
  mutable stat_counter calls_{
      &nic_, nullptr, [] {
        return stat_desc{"rtl_rp_events", "calls", "dcqcn-rtl: events the RTL block took", nullptr};
      }};
  mutable stat_counter cycles_{
      &nic_, nullptr, [] {
        return stat_desc{"rtl_rp_cycles", "cycles", "dcqcn-rtl: clock cycles the events took", nullptr};
      }};
  choice_param check_{&nic_, [] {
                        return choice_spec{"rtl.check",
                                           "dcqcn-rtl: off, or lockstep (every event also computed by the C++ "
                                           "fixed-point reference; the first difference stops the run and writes a "
                                           "VCD of the block's last ~100 cycles)",
                                           "off",
                                           {"off", "lockstep"}};
                      }};
  param<sc_core::sc_time> clock_{&nic_, [] {
                                   return param_spec<sc_core::sc_time>{
                                       "rtl.clock",
                                       "dcqcn-rtl: the block's clock period (the cycle of rtl.latency, waveform "
                                       "time stamps)",
                                       sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(1, sc_core::SC_PS),
                                       sc_core::sc_time(1, sc_core::SC_US)};
                                 }};
  choice_param latency_{&nic_, [] {
                          return choice_spec{"rtl.latency",
                                             "dcqcn-rtl: none (a new rate takes effect at its event), or cycles (the "
                                             "NIC's block serves events one at a time, each for the clock cycles it "
                                             "takes at rtl.clock; a new rate reaches the limiter when its last event "
                                             "is answered)",
                                             "none",
                                             {"none", "cycles"}};
                        }};
  param<bool> trace_{&nic_, [] {
                       return param_spec<bool>{"rtl.trace",
                                               "dcqcn-rtl: write the block's waveforms, <nic>.rtl.vcd, in ps", false,
                                               false, true};
                     }};
};

// One flow's rate machine on the block: dcqcn_rp_state's events, each one call of the block
// (the CNP Tonic's incoming function, the rest its timeout function), the context kept here.
class dcqcn_rtl_machine {
 public:
  // `answer`: the flow's seam to its limiter, told when each charged event is answered.
  dcqcn_rtl_machine(const dcqcn_rtl_maker& maker, std::string flow_label, double line_rate, double alpha0,
                    split_rate_update& answer);
  void on_cnp(const dcqcn_rp_config& c);
  void note_cnp(const dcqcn_rp_config& c) { step(rp_event::cnp_noted, c); }
  void cut(const dcqcn_rp_config& c);
  void on_hold();  // dcqcn-tcd's hold: not in the block (dcqcn-rtl never holds)
  // k alpha-timer events, stopping early once alpha no longer changes (the truncated decay's floor).
  void on_alpha_timer(const dcqcn_rp_config& c, uint64_t k = 1);
  // The same, for periods in the past (the flow's timers slept): a chip's timer would have run
  // them then, so they take no time of the block now.
  void on_missed_alpha_periods(const dcqcn_rp_config& c, uint64_t k) { alpha_periods(c, k, false); }
  void on_rate_timer(const dcqcn_rp_config& c) { step(rp_event::rate_timer, c); }
  uint32_t on_bytes(const dcqcn_rp_config& c, uint64_t bytes);
  double rc() const { return rate_bps(x_.rc, line_); }
  double rt() const { return rate_bps(x_.rt, line_); }
  const rp_context& context() const { return x_; }

 private:
  void step(rp_event e, const dcqcn_rp_config& c, bool charged = true);
  void alpha_periods(const dcqcn_rp_config& c, uint64_t k, bool charged);
  const dcqcn_rtl_maker* maker_;
  split_rate_update* answer_;
  std::string flow_;
  rp_context x_;
  double line_;
  uint64_t bytes_ = 0;  // the byte counter (the NIC's transmit side counts; the block sees its events)
};

}  // namespace sluice
