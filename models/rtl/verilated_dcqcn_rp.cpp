// The transaction wrapper around the Verilated DCQCN reaction-point block (--cc): the event and
// the flow's context driven, clocked inside call() until valid, the new context read back.
#include "models/rtl/verilated_clocking.h"
// (Verilator's headers first.)
#include <stdexcept>

#include "Vdcqcn_rp.h"
#include "Vdcqcn_rp_mutant.h"
#include "Vdcqcn_rp_traced.h"
#include "models/rtl/rp_block.h"

namespace sluice {
namespace {

template <class Model, bool Traced>
class verilated_rp final : public clocked_block<rp_block, Model, Traced> {
 public:
  verilated_rp() : clocked_block<rp_block, Model, Traced>("dcqcn_rp", "dcqcn reaction point") {}

  void configure(const rp_block_config& c) override {
    Model& m = this->model();
    m.g = static_cast<uint16_t>(c.g);
    m.rai = c.rai & rp_widths::rate_mask;
    m.rhai = c.rhai & rp_widths::rate_mask;
    m.min_rate = c.min_rate & rp_widths::rate_mask;
    m.fast_recovery = static_cast<uint8_t>(c.fast_recovery);
    m.rules = static_cast<uint8_t>(c.rules & 0x3f);
  }

  rp_answer call(rp_event e, const rp_context& x, uint64_t t_ps) override {
    Model& m = this->model();
    const rp_context::packed in = x.pack();
    for (int w = 0; w < 3; ++w) m.ctx_in[w] = in[w];
    m.event_kind = static_cast<uint8_t>(e);
    const uint32_t cycles = this->transact(t_ps, rp_max_cycles);
    const rp_context out = rp_context::unpack({m.ctx_out[0], m.ctx_out[1], m.ctx_out[2]});
    if (m.rate != out.rc) throw std::logic_error("rtl: dcqcn reaction point: rate is not the context's rc");
    return {out, cycles};
  }
};

}  // namespace

std::unique_ptr<rp_block> make_verilated_dcqcn_rp(rp_rtl_build build) {
  switch (build) {
    case rp_rtl_build::traced:
      return std::make_unique<verilated_rp<Vdcqcn_rp_traced, true>>();
    case rp_rtl_build::mutant:
      return std::make_unique<verilated_rp<Vdcqcn_rp_mutant, true>>();
    case rp_rtl_build::fast:
      break;
  }
  return std::make_unique<verilated_rp<Vdcqcn_rp, false>>();
}

}  // namespace sluice
