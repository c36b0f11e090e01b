#include "models/switch/mmu.h"

#include "models/core/stats.h"
#include "models/switch/switch_policies.h"

namespace sluice {

namespace {
const param_spec<byte_count> reserve_spec{"pfc.reserve",          "guaranteed buffer per priority group",
                                          byte_count{0},          byte_count{0},
                                          byte_count{1ull << 30}, param_change::live};
const param_spec<byte_count> xoff_spec{
    "pfc.xoff",
    "static threshold: shared bytes a priority group may hold before XOFF (threshold=static)",
    byte_count{48 * 1024},
    byte_count{0},
    byte_count{1ull << 34},
    param_change::live};
const param_spec<byte_count> xon_offset_spec{
    "pfc.xon_offset",       "XON when the group's shared use falls this far below its threshold (2 MTU)",
    byte_count{3000},       byte_count{0},
    byte_count{1ull << 30}, param_change::live};
// 32 KiB stands until the fabric derives the default from the port's link (derive_defaults).
// Up to 16 TiB: the derived default of a legal 1 s link at 10 Tb/s still fits.
const param_spec<byte_count> headroom_spec{
    "pfc.headroom",
    "bytes a lossless priority group absorbs after XOFF (default: 2 x delay x rate + response x rate + 3 max frames + "
    "64 B)",
    byte_count{32 * 1024},
    byte_count{0},
    byte_count{1ull << 44},
    param_change::live};
const param_spec<byte_count> buffer_spec{"buffer", "shared buffer pool size", byte_count{12ull << 20}, byte_count{0},
                                         byte_count{1ull << 36}};
const choice_spec& threshold_spec() {
  static const auto spec = threshold_policies::instance().choice_for("threshold", "per-group shared limit", "dynamic");
  return *spec;
}
const param_spec<double> alpha_spec{
    "alpha", "dynamic-threshold factor of lossless priority groups (SONiC Broadcom: 1/8)",
    0.125,   1.0 / 1024,
    1024.0,  param_change::live};
const param_spec<double> alpha_lossy_spec{
    "alpha_lossy",     "dynamic-threshold factor of lossy priority groups (SONiC Broadcom: 8)", 8.0, 1.0 / 1024, 1024.0,
    param_change::live};
const param_spec<byte_count> cell_spec{
    "cell",
    "buffer allocation unit; frames occupy whole cells (1 B: exact bytes; SONiC: Spectrum-1 96 B, Spectrum-2/3 144 B)",
    byte_count{1}, byte_count{1}, byte_count{16384}};
const param_spec<bool> lossless_spec{"lossless", "PFC-protected (lossless) priority", true, false, true};
const stat_desc buffer_stats[] = {
    {"buffer_bytes", "bytes", "buffer in use now: every priority group's reserved, shared and headroom bytes",
     [](const void* m, int) { return static_cast<double>(stat_model<mmu>(m).in_use_bytes()); }},
    {"buffer_peak_bytes", "bytes", "largest buffer in use over the run (all priority groups together)",
     [](const void* m, int) { return static_cast<double>(stat_model<mmu>(m).peak_in_use_bytes()); }},
    {"buffer_mean_bytes", "bytes", "time-averaged buffer in use",
     [](const void* m, int) { return stat_model<mmu>(m).mean_in_use_bytes(now_ps()); }},
    {"shared_bytes", "bytes", "shared pool in use now",
     [](const void* m, int) { return static_cast<double>(stat_model<mmu>(m).shared_bytes()); }},
    {"shared_peak_bytes", "bytes", "largest shared pool use over the run",
     [](const void* m, int) { return static_cast<double>(stat_model<mmu>(m).peak_shared_bytes()); }},
};
}  // namespace

mmu_port_params::mmu_port_params(const sc_core::sc_object& port, param_listener* owner)
    : reserve(&port, reserve_spec),
      xoff(&port, xoff_spec),
      xon_offset(&port, xon_offset_spec),
      headroom(&port, headroom_spec) {
  for (param_base* p : {static_cast<param_base*>(&reserve), static_cast<param_base*>(&xoff),
                        static_cast<param_base*>(&xon_offset), static_cast<param_base*>(&headroom)})
    p->on_change(owner);
}

mmu::mmu(sc_core::sc_module_name name, int classes, link_layer layer)
    : sc_module(name),
      buffer(this, buffer_spec),
      threshold_mode(this, threshold_spec()),
      alpha(this, alpha_spec),
      alpha_lossy(this, alpha_lossy_spec),
      cell(this, cell_spec),
      classes_(classes),
      layer_(layer) {
  // Per-priority parameters live on the switch ("sw0.prio3.lossless").
  const sc_core::sc_object* sw = get_parent_object();
  for (int i = 0; i < classes_; ++i) lossless.push_back(std::make_unique<param<bool>>(sw, lossless_spec, i));
  alpha.on_change(this);
  alpha_lossy.on_change(this);
  for (param_base* p : std::initializer_list<param_base*>{&buffer, &threshold_mode, &alpha, &alpha_lossy, &cell})
    p->inert_when(inert_reason, this);
  for (auto& p : lossless) p->inert_when(inert_reason, this);
  add_stats(*this, buffer_stats, this);
}

void mmu::add_port(const sc_core::sc_object& port) {
  ports.push_back(std::make_unique<mmu_port_params>(port, static_cast<param_listener*>(this)));
  for (param_base* p :
       {&ports.back()->reserve, &ports.back()->xoff, &ports.back()->xon_offset, &ports.back()->headroom})
    p->inert_when(inert_reason, this);
}

// Inert when: another MMU replaces this one (every parameter); PFC on InfiniBand ports (pfc.xoff,
// xon_offset, headroom);
// the chosen threshold policy does not read it (pfc.xoff under dynamic, alpha and alpha_lossy
// under static); no class is lossless (nothing pauses: alpha, pfc.headroom, pfc.xon_offset), or
// every class is (alpha_lossy).
std::string mmu::inert_reason(const void* model, const param_base& p) {
  const mmu& m = *static_cast<const mmu*>(model);
  const std::string l = p.leaf();
  if (m.replaced_) return std::string(m.name()) + " is replaced by an MMU bound with bind_mmu";
  // An InfiniBand port's reserve holds its VL buffers (fabric::derive_defaults): nothing reaches
  // the PFC thresholds, and credits, not XOFF, hold the sender.
  if (m.layer_ == link_layer::ib && l.compare(0, 4, "pfc.") == 0 && l != "pfc.reserve")
    return "PFC on an InfiniBand port, which has credit flow control";
  if (!threshold_policies::instance().reads(m.threshold_mode(), l))
    return m.threshold_mode.name() + " is '" + m.threshold_mode() + "', which does not read " + l;
  int lossless_classes = 0;
  for (int i = 0; i < m.classes_; ++i) lossless_classes += m.is_lossless(i);
  const sc_core::sc_object* sw = m.get_parent_object();
  const std::string prio = (sw ? std::string(sw->name()) + "." : std::string()) + "prio<k>.lossless";
  if (lossless_classes == 0 && (l == "alpha" || l == "pfc.headroom" || l == "pfc.xon_offset"))
    return "no class is lossless (" + prio + " = false): nothing pauses";
  if (lossless_classes == m.classes_ && l == "alpha_lossy") return "every class is lossless (" + prio + " = true)";
  return "";
}

pg_config mmu::group_config(int port, int cls) const {
  const mmu_port_params& pp = *ports[port];
  return pg_config{is_lossless(cls),      is_lossless(cls) ? alpha() : alpha_lossy(),
                   pp.reserve().bytes,    pp.xoff().bytes,
                   pp.xon_offset().bytes, pp.headroom().bytes};
}

// Built at simulation start so parameter overrides applied after elaboration take effect.
void mmu::start_of_simulation() {
  threshold_ = threshold_policies::instance().make(threshold_mode.name(), threshold_mode());
  buffer_config bc{buffer().bytes, true, cell().bytes, threshold_.get()};
  std::vector<pg_config> pgs;
  for (int p = 0; p < static_cast<int>(ports.size()); ++p)
    for (int i = 0; i < classes_; ++i) pgs.push_back(group_config(p, i));
  state_ = std::make_unique<shared_buffer>(static_cast<int>(ports.size()), classes_, bc, std::move(pgs));
  state_->set_listener(listener_);
}

// A run-time write to a threshold, offset, reserve, headroom or alpha: the groups' copies are
// refreshed now; each group's next admission decides XOFF, and its next release or PFC refresh
// XON, with the new values (usage and pause state are kept).
void mmu::param_changed(const param_base&) {
  if (!state_) return;  // before the run: start_of_simulation reads the values
  for (int p = 0; p < static_cast<int>(ports.size()); ++p)
    for (int i = 0; i < classes_; ++i) state_->set_config(p, i, group_config(p, i));
}

uint64_t mmu::capacity_bytes(int priority) const {
  uint64_t bytes = buffer().bytes;
  for (const auto& pp : ports) bytes += pp->reserve().bytes + (is_lossless(priority) ? pp->headroom().bytes : 0);
  return bytes;
}

double mmu::mean_in_use_bytes(uint64_t now) const {
  if (!state_ || now == 0) return 0;
  const unsigned __int128 total =
      in_use_byte_ps_ + static_cast<unsigned __int128>(state_->in_use()) * (now - last_change_ps_);
  return static_cast<double>(static_cast<long double>(total) / static_cast<long double>(now));
}

}  // namespace sluice
