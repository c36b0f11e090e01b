// The transaction wrapper's contract for the DCQCN reaction-point block: one call per event of a
// flow (Tonic's incoming and timeout functions), the flow's context in and out, the block clocked
// inside the call and only until it answers. No Verilator type appears here (docs/rtl.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "models/rtl/dcqcn_rp_reference.h"

namespace sluice {

class rp_block {
 public:
  virtual ~rp_block() = default;
  // Held on the configuration ports until the next call to configure.
  virtual void configure(const rp_block_config& c) = 0;
  // Drives the event and the context, clocks until valid, takes the new context and the cycles.
  // `t_ps`: the model time of the event, for waveforms only.
  virtual rp_answer call(rp_event e, const rp_context& x, uint64_t t_ps) = 0;
  // Waveforms (traced builds only; false otherwise), as sched_block's.
  virtual bool trace_to(const std::string& path, uint64_t period_ps) = 0;
  virtual bool trace_window(uint32_t cycles, uint64_t period_ps) = 0;
  virtual bool dump_window(const std::string& path) = 0;
};

// The Verilated builds of rtl/sluice_dcqcn_rp.sv: fast, traced, and the mutation test's (traced,
// one wrong bit in the cut rate).
enum class rp_rtl_build { fast, traced, mutant };
std::unique_ptr<rp_block> make_verilated_dcqcn_rp(rp_rtl_build build);

// The most cycles one event may take (every event takes one).
constexpr uint32_t rp_max_cycles = 1;

}  // namespace sluice
