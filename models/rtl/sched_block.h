// The transaction wrapper's contract for the egress scheduler block: one call per dequeue
// decision, the block clocked inside the call and only until it answers (no free-running clock),
// returning the answer and the clock cycles it took. No Verilator type appears here, so that
// nothing else includes Verilated headers (they must come before <systemc>, see docs/rtl.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "models/rtl/egress_sched_reference.h"

namespace sluice {

class sched_block {
 public:
  virtual ~sched_block() = default;
  // Held on the configuration ports until the next call to configure.
  virtual void configure(const sched_block_config& c) = 0;
  // Drives the request, clocks until valid, takes the answer. `t_ps`: the model time of the
  // request, used only to time-stamp waveforms (cycle k at t_ps + k x period_ps).
  virtual sched_answer call(const sched_request& r, uint64_t t_ps) = 0;
  // Waveforms (traced builds only; false otherwise). trace_to: the whole run into `path`.
  // trace_window: the last ~`cycles` clock cycles kept in memory, written by dump_window.
  virtual bool trace_to(const std::string& path, uint64_t period_ps) = 0;
  virtual bool trace_window(uint32_t cycles, uint64_t period_ps) = 0;
  virtual bool dump_window(const std::string& path) = 0;
};

// The Verilated builds of rtl/sluice_egress_sched.sv: `fast` (no tracing, the default path),
// `traced` (--trace: lockstep and waveforms), `mutant` (traced, one wrong bit in the DWRR
// deficit update: the mutation test's).
enum class sched_rtl_build { fast, traced, mutant };
std::unique_ptr<sched_block> make_verilated_egress_sched(sched_rtl_build build);

// The most cycles one decision may take: a 65535-byte head against the smallest grant (64
// bytes) takes 1024 further rounds. More is an interface violation.
constexpr uint32_t sched_max_cycles = 1025;

}  // namespace sluice
