#include "models/rtl/dcqcn_rp_rtl.h"

#include <algorithm>
#include <stdexcept>

#include "models/core/units.h"

namespace sluice {
namespace {
const policy_registrar<rp_policies> reg{
    "dcqcn-rtl",
    "dcqcn with the rate machine in RTL (rtl/sluice_dcqcn_rp.sv, Verilated, fixed point): rp.* and rtl.check, "
    "rtl.clock, rtl.latency, rtl.trace",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<dcqcn_rtl_maker>(nic, mac); }};
}  // namespace

dcqcn_rtl_maker::dcqcn_rtl_maker(const sc_core::sc_object& nic, const mac_port& mac, rp_rtl_build build)
    : dcqcn_rp_maker(nic, mac, false), nic_(nic), build_(build) {}

std::unique_ptr<reaction_point_if> dcqcn_rtl_maker::make(const flow& f, rate_limiter_if& limiter) {
  std::string label = "flow " + std::to_string(f.id) + (f.spec.name.empty() ? "" : " (" + f.spec.name + ")");
  split_rate_update& answer = *updates_.emplace_back(std::make_unique<split_rate_update>(limiter));
  return std::make_unique<dcqcn_rp_timing<dcqcn_rtl_machine>>(
      *this, answer, [this, label, &answer](double line, double alpha0) {
        return dcqcn_rtl_machine(*this, label, line, alpha0, answer);
      });
}

void dcqcn_rtl_maker::start() const {
  lockstep_ = check_() == "lockstep";
  const rp_rtl_build build = build_ == rp_rtl_build::fast && (lockstep_ || trace_()) ? rp_rtl_build::traced : build_;
  block_ = make_verilated_dcqcn_rp(build);
  const uint64_t period = to_ps(clock_());
  if (latency_() == "cycles") period_ps_ = period;
  if (trace_()) block_->trace_to(std::string(nic_.name()) + ".rtl.vcd", period);
  if (lockstep_ && !trace_()) block_->trace_window(100, period);
}

dcqcn_rtl_maker::step dcqcn_rtl_maker::update(rp_event e, const rp_context& x, const dcqcn_rp_config& c,
                                              const std::string& flow_label, bool charged) const {
  const rp_block_config fixed = to_fixed(c);
  if (!block_) {
    start();
    block_->configure(fixed_ = fixed);
  } else if (!(fixed == fixed_)) {
    block_->configure(fixed_ = fixed);  // a live write, or the line rate changed
  }
  // With rtl.latency cycles the event starts once the block is free and answers its cycles later.
  const bool timed = charged && period_ps_;
  const uint64_t start = timed ? std::max(now_ps(), busy_until_) : now_ps();
  const rp_answer a = block_->call(e, x, start);
  ++calls_;
  cycles_ += a.cycles;
  if (lockstep_) {
    const rp_answer ref = dcqcn_rp_reference(fixed_, e, x);
    if (ref != a) mismatch(e, x, flow_label, a, ref);
  }
  if (!timed) return {a.ctx, 0};
  busy_until_ = start + a.cycles * period_ps_;
  return {a.ctx, busy_until_};
}

void dcqcn_rtl_maker::mismatch(rp_event e, const rp_context& x, const std::string& flow_label, const rp_answer& rtl,
                               const rp_answer& ref) const {
  const std::string vcd = std::string(nic_.name()) + ".rtl-mismatch.vcd";
  const bool wrote = block_->dump_window(vcd);
  std::string s = std::string(nic_.name()) + ": dcqcn-rtl lockstep mismatch at " + format_time(from_ps(now_ps())) +
                  " (event " + std::to_string(calls_.value()) + "): " + flow_label + ", " + event_name(e) + " on " +
                  to_string(x) + ": rtl " + to_string(rtl.ctx) + " in " + std::to_string(rtl.cycles) +
                  " cycles, reference " + to_string(ref.ctx) + " in " + std::to_string(ref.cycles) + " cycles";
  if (wrote) s += "; waveform " + vcd;
  SC_REPORT_ERROR("sluice/rtl", s.c_str());
  throw std::logic_error(s);  // only if the report's action does not throw
}

dcqcn_rtl_machine::dcqcn_rtl_machine(const dcqcn_rtl_maker& maker, std::string flow_label, double line_rate,
                                     double alpha0, split_rate_update& answer)
    : maker_(&maker), answer_(&answer), flow_(std::move(flow_label)), line_(line_rate) {
  x_.alpha = alpha_to_fixed(alpha0);
}

void dcqcn_rtl_machine::step(rp_event e, const dcqcn_rp_config& c, bool charged) {
  line_ = c.line_rate;
  const dcqcn_rtl_maker::step s = maker_->update(e, x_, c, flow_, charged);
  x_ = s.ctx;
  if (s.ready_ps) answer_->ready_at(s.ready_ps);  // the rate set after this event waits for it
}

void dcqcn_rtl_machine::on_cnp(const dcqcn_rp_config& c) {
  step(rp_event::cnp, c);
  bytes_ = 0;
}

void dcqcn_rtl_machine::cut(const dcqcn_rp_config& c) {
  step(rp_event::decrease_tick, c);
  bytes_ = 0;
}

void dcqcn_rtl_machine::on_hold() {
  x_.rt = x_.rc;
  x_.timer_stage = x_.byte_stage = 0;
  bytes_ = 0;
}

void dcqcn_rtl_machine::on_alpha_timer(const dcqcn_rp_config& c, uint64_t k) { alpha_periods(c, k, true); }

void dcqcn_rtl_machine::alpha_periods(const dcqcn_rp_config& c, uint64_t k, bool charged) {
  for (uint64_t i = 0; i < k; ++i) {
    const rp_context before = x_;
    step(rp_event::alpha_timer, c, charged);
    if (x_ == before) break;  // a fixed point: the remaining events change nothing
  }
}

uint32_t dcqcn_rtl_machine::on_bytes(const dcqcn_rp_config& c, uint64_t bytes) {
  bytes_ += bytes;
  uint32_t events = 0;
  while (c.byte_counter && bytes_ >= c.byte_counter) {
    bytes_ -= c.byte_counter;
    ++events;
    step(rp_event::bytes, c);
  }
  return events;
}

}  // namespace sluice
