// Reaction point "ib-cca": the IB CCA source (ib_cca_state, ib_cca_rp.h) per flow (QP-based
// CCTI: the model's QP is the flow). A BECN, carried by a CNP from the destination, raises the
// flow's CCTI; the CCTI timer lowers it; the flow's limiter paces at the rate the table entry
// CCT[CCTI] gives. Parameters once per NIC (<nic>.rp.*), read at each event. The table is made
// from a shape and its largest delay (rp.cct_shape, rp.cct_max_delay), CCTI_Limit + 1 entries,
// or loaded entry by entry (rp.cct: "shift:multiplier ...", which then also sets the limit's
// default to its last entry).
// "ib-cca-tcd" (docs/models/tcd.md) reads TCD's code point from the CNP's BTH: a BECN with the UE
// bit gets <nic>.rp.cca_ue_reaction, one without it (CE: FECN) <nic>.rp.cca_ce_reaction, each
// `increase` (CCA's CCTI increase), `hold` (ib_cca_state::on_hold) or `ignore`.
#include "models/cc/ib_cca/ib_cca_rp.h"

#include <algorithm>
#include <string>

#include "models/cc/reaction_point.h"
#include "models/core/event_queue.h"
#include "models/core/param_cache.h"
#include "models/core/params.h"
#include "models/core/stats.h"
#include "models/protocol/ib_frame.h"

namespace sluice {
namespace {
using sc_core::sc_time;

// rp.cct: the table as text, parsed (and rejected with a one-line error) when it is set.
class cct_param final : public param_base {
 public:
  explicit cct_param(const sc_core::sc_object* nic) : param_base(nic, declaration, -1) {}
  std::string unit() const override { return "table"; }
  std::string value_string() const override { return text_; }
  std::string default_string() const override { return ""; }
  std::string range_string() const override { return "shift 0-3 : multiplier 0-16383, ..."; }
  void set_from_string(const std::string& text) override {
    entries_ = parse_cct(text, name());
    text_ = text;
    overridden_ = true;
  }
  void check_string(const std::string& text) const override { parse_cct(text, name()); }
  const std::vector<cct_entry>& entries() const { return entries_; }
  static constexpr param_text declaration{"rp.cct",
                                          "ib-cca: the congestion control table entry by entry, 'shift:multiplier' "
                                          "from index 0 (empty: the shape's)"};

 private:
  std::string text_;
  std::vector<cct_entry> entries_;
};

class cca_maker final : public reaction_point_maker {
 public:
  cca_maker(const sc_core::sc_object& nic, const mac_port& mac, bool ternary) : nic_(nic), mac_(mac) {
    if (ternary) {
      ce_reaction = std::make_unique<choice_param>(&nic, [] {
        return choice_spec{"rp.cca_ce_reaction",
                           "ib-cca-tcd: reaction to a BECN for a CE (FECN) frame",
                           "increase",
                           {"increase", "hold", "ignore"}};
      });
      ue_reaction = std::make_unique<choice_param>(&nic, [] {
        return choice_spec{"rp.cca_ue_reaction",
                           "ib-cca-tcd: reaction to a BECN for a UE (undetermined: perhaps a victim) frame",
                           "hold",
                           {"increase", "hold", "ignore"}};
      });
    }
    // A loaded table replaces the shape's.
    for (param_base* p : std::initializer_list<param_base*>{&max_delay, &shape})
      p->inert_when(
          [](const void* m, const param_base&) -> std::string {
            const cct_param& table = static_cast<const cca_maker*>(m)->cct;
            return table.entries().empty() ? "" : table.name() + " loads the table entry by entry";
          },
          this);
    config_.watch({&increase});
  }
  // The reaction a BECN CNP asks for: "increase" without TCD; with it, by the code point in its BTH.
  const std::string& reaction_to(const packet_header& cnp) const {
    static const std::string increase = "increase";
    if (!ce_reaction) return increase;
    ib::route_headers r;
    if (cnp.image) ib::decode(cnp.image->data(), r);
    return r.ue ? (*ue_reaction)() : (*ce_reaction)();
  }
  std::unique_ptr<reaction_point_if> make(const flow&, rate_limiter_if& limiter) override;
  double line_rate() const { return mac_.wire().current_rate().bps; }
  // A loaded table's last entry is CCTI_Limit unless the limit is set.
  uint64_t ccti_limit() const {
    return cct.entries().empty() || limit.overridden() ? limit() : cct.entries().size() - 1;
  }
  // What every BECN and timer reads: packed at the first of the run, again after a live write
  // (ccti_increase).
  const ib_cca_config& config() const {
    return config_.get([this]() -> ib_cca_config {
      return {static_cast<uint32_t>(increase()), static_cast<uint32_t>(ccti_limit()), static_cast<uint32_t>(min())};
    });
  }
  // CCTI_Min must index the table (CCTI_Limit + 1 entries), and a loaded table must hold
  // CCTI_Limit + 1 entries.
  void check() const override {
    const auto n = cct.entries().size();
    if (n && limit() >= n && limit.overridden())
      throw config_error(limit.name() + ": '" + std::to_string(limit()) + "' is past the table's end (" + cct.name() +
                         " has " + std::to_string(n) + " entries)");
    if (n && min() >= n)
      throw config_error(min.name() + ": '" + std::to_string(min()) + "' is past the table's end (" + cct.name() +
                         " has " + std::to_string(n) + " entries)");
    if (min() > ccti_limit())
      throw config_error(min.name() + ": '" + std::to_string(min()) + "' is past the table's end (" + limit.name() +
                         " = " + std::to_string(ccti_limit()) + ")");
  }
  // The table: the loaded one, or the shape's, built at the first use of the run.
  const std::vector<cct_entry>& table() {
    if (!cct.entries().empty()) return cct.entries();
    return table_.get([this] { return make_cct(static_cast<uint32_t>(limit()), max_delay(), shape() == "quadratic"); });
  }

 private:
  friend class cca_rp;
  const sc_core::sc_object& nic_;
  const mac_port& mac_;

 public:
  // The tutorial's / [LLNL-sweep]'s "study" profile: increase 1, limit 127, min 0, timer 150 x
  // 1.024 us, a quadratic table reaching ~57 packet times (the "mellanox default" CCT).
  param<uint64_t> increase{&nic_, [] {
                             return param_spec<uint64_t>{
                                 "rp.ccti_increase", "ib-cca: CCTI added per BECN (study profile: 1)", 1, 0, 255,
                                 param_change::live};
                           }};
  param<uint64_t> limit{
      &nic_, [] {
        return param_spec<uint64_t>{"rp.ccti_limit", "ib-cca: largest CCTI, the last table entry (127)", 127, 1, 16383};
      }};
  param<uint64_t> min{
      &nic_, [] {
        return param_spec<uint64_t>{"rp.ccti_min", "ib-cca: CCTI floor the timer decays to (0)", 0, 0, 16383};
      }};
  param<sc_time> timer{&nic_, [] {
                         return param_spec<sc_time>{"rp.ccti_timer", "ib-cca: CCTI decrement period (150 x 1.024 us)",
                                                    sc_time(153.6, sc_core::SC_US), sc_time(1.024, sc_core::SC_US),
                                                    sc_time(65535 * 1.024, sc_core::SC_US)};
                       }};
  param<double> max_delay{
      &nic_, [] {
        return param_spec<double>{
            "rp.cct_max_delay",
            "ib-cca: inter-packet delay of the last table entry, in packet times (vendor default ~57)", 57.0, 0.0,
            16383.0};
      }};
  choice_param shape{&nic_, [] {
                       return choice_spec{"rp.cct_shape",
                                          "ib-cca: congestion control table shape (entry 0: no delay)",
                                          "quadratic",
                                          {"quadratic", "linear"}};
                     }};
  cct_param cct{&nic_};
  std::unique_ptr<choice_param> ce_reaction, ue_reaction;  // ib-cca-tcd only

 private:
  param_cache<std::vector<cct_entry>> table_;  // no live parameter: built once
  mutable param_cache<ib_cca_config> config_;
};

class cca_rp final : public reaction_point_if, public timed_client {
 public:
  // Registers the flow's CCTI and BECN count as "<nic>.rp.flow<id>.ccti", ".becns".
  cca_rp(cca_maker& maker, rate_limiter_if& limiter, uint32_t flow_id)
      : maker_(maker), limiter_(limiter), scope_("rp.flow" + std::to_string(flow_id)) {
    static const stat_desc stats[] = {
        {"ccti", "index", "ib-cca: the flow's congestion control table index now",
         [](const void* m, int) { return static_cast<double>(stat_model<cca_rp>(m).state_.ccti()); }},
        {"becns", "frames", "ib-cca: BECNs this flow's source received",
         [](const void* m, int) { return static_cast<double>(stat_model<cca_rp>(m).state_.becns()); },
         stat_kind::counter},
    };
    static const stat_desc hold_stat[] = {
        {"holds", "frames", "ib-cca-tcd: BECNs this flow's source answered with a hold",
         [](const void* m, int) { return static_cast<double>(stat_model<cca_rp>(m).state_.holds()); },
         stat_kind::counter},
    };
    stat_registry::instance().add(&maker.nic_, scope_.c_str(), stats, 2, this);
    if (maker.ce_reaction) stat_registry::instance().add(&maker.nic_, scope_.c_str(), hold_stat, 1, this);
  }
  void on_feedback(const packet_header& h, uint64_t now) override {
    if (h.kind != frame_kind::cnp || !(h.flags & frame_flags::becn)) return;
    const std::string& reaction = maker_.reaction_to(h);
    if (reaction == "hold") state_.on_hold(now, to_ps(maker_.timer()));
    if (reaction != "increase") return;
    if (state_.on_becn(maker_.config())) event_queue::instance().schedule(this, now + to_ps(maker_.timer()));
    apply();
  }
  void on_send(const packet_header&, uint64_t) override {}
  void on_timer() override {
    if (state_.held(now_ps())) return event_queue::instance().schedule(this, state_.hold_until());
    if (state_.on_timer(maker_.config())) event_queue::instance().schedule(this, now_ps() + to_ps(maker_.timer()));
    apply();
  }
  data_rate target_rate() const override { return limiter_.rate(); }
  uint32_t ccti() const { return state_.ccti(); }

 private:
  // Entry 0 (no delay) lifts the limit; otherwise line x share, as a pacing rate.
  void apply() {
    const auto& table = maker_.table();  // a limit raised later by an event stops at the last entry
    const cct_entry& e = table[std::min<std::size_t>(state_.ccti(), table.size() - 1)];
    limiter_.set_rate(e.multiplier ? data_rate{maker_.line_rate() * e.rate_share()} : data_rate{0});
  }
  cca_maker& maker_;
  rate_limiter_if& limiter_;
  ib_cca_state state_;
  std::string scope_;  // "rp.flow3", kept for the registry
};

std::unique_ptr<reaction_point_if> cca_maker::make(const flow& f, rate_limiter_if& limiter) {
  return std::make_unique<cca_rp>(*this, limiter, f.id);
}

const policy_registrar<rp_policies> reg{
    "ib-cca",
    "InfiniBand CCA source: per-flow CCTI raised by BECN, lowered by rp.ccti_timer, paced by the CCT entry (rp.*)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<cca_maker>(nic, mac, false); }};
const policy_registrar<rp_policies> reg_tcd{
    "ib-cca-tcd",
    "IB CCA source with TCD: per code point in the BECN's BTH, rp.cca_ce_reaction / rp.cca_ue_reaction (increase, "
    "hold, ignore)",
    [](const sc_core::sc_object& nic, const mac_port& mac) { return std::make_unique<cca_maker>(nic, mac, true); }};
}  // namespace
}  // namespace sluice
