#include "models/cc/scheme.h"

#include <stdexcept>

#include "models/cc/reaction_point.h"
#include "models/core/frame_kinds.h"
#include "models/core/params.h"
#include "models/core/units.h"

namespace sluice {

cc_scheme_registry& cc_scheme_registry::instance() {
  static cc_scheme_registry r;
  return r;
}

void cc_scheme_registry::add(cc_scheme s) {
  if (find(s.name)) throw std::logic_error("congestion-control scheme '" + s.name + "' registered twice");
  schemes_.push_back(std::make_unique<cc_scheme>(std::move(s)));
}

const cc_scheme* cc_scheme_registry::find(const std::string& name) const {
  for (const auto& s : schemes_)
    if (s->name == name) return s.get();
  return nullptr;
}

std::string cc_scheme_registry::names() const {
  std::string out;
  for (const auto& s : schemes_) out += (out.empty() ? "" : ", ") + s->name;
  return out;
}

const cc_scheme& cc_scheme_registry::named(const std::string& name, const std::string& key) const {
  if (const cc_scheme* s = find(name)) return *s;
  // A reaction point's name (dcqcn-rtl) is a common slip: say where it goes, or why it is missing.
  std::string hint;
  if (rp_policies::instance().find(name))
    hint = " ('" + name + "' is a reaction point: a scheme with --cc, then --set '<nic>.rp=" + name + "')";
  else if (const char* why = absent_choice::why(name))
    hint = std::string(" (") + name + ": " + why + ")";
  throw config_error(key + ": '" + name + "' is not one of {" + names() + "}" + hint);
}

std::string cc_scheme_registry::names_for(bool infiniband) const {
  const cc_fabric here = infiniband ? cc_fabric::infiniband : cc_fabric::ethernet;
  std::string fits;
  for (const auto& s : schemes_)
    if (s->fabric == cc_fabric::any || s->fabric == here) fits += (fits.empty() ? "" : ", ") + s->name;
  return fits;
}

void cc_scheme_registry::check_fabric(const cc_scheme& scheme, bool infiniband, const std::string& key) const {
  const cc_fabric here = infiniband ? cc_fabric::infiniband : cc_fabric::ethernet;
  if (scheme.fabric == cc_fabric::any || scheme.fabric == here) return;
  throw config_error(key + ": '" + scheme.name + "' is a scheme for " +
                     (infiniband ? "Ethernet (CEE) fabrics, and this one is InfiniBand (link_layer: ib)"
                                 : "InfiniBand fabrics, and this one is Ethernet (CEE)") +
                     (scheme.fabric_reason.empty() ? ":" : ": " + scheme.fabric_reason + ";") + " one of {" +
                     names_for(infiniband) + "}");
}

cc_scheme_registrar::cc_scheme_registrar(std::string name, std::string description, cc_fabric_fit fabric,
                                         std::string cp, std::string np, std::string rp,
                                         std::vector<cc_scheme::feedback_kind> feedback, std::function<void()> declare,
                                         decltype(cc_scheme::observer) observer) {
  cc_scheme s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.fabric = fabric.fabric;
  s.fabric_reason = std::move(fabric.why_not_elsewhere);
  s.cp = std::move(cp);
  s.np = std::move(np);
  s.rp = std::move(rp);
  s.feedback = std::move(feedback);
  s.declare = std::move(declare);
  s.observer = std::move(observer);
  for (const cc_scheme::feedback_kind& k : s.feedback)
    frame_kind_registry::instance().add(k.kind, k.name, k.label, frame_role::feedback);
  cc_scheme_registry::instance().add(std::move(s));
}

namespace {
const cc_scheme_registrar none{"none", "no congestion control: PFC (or credits) alone", cc_fabric::any, "none", "none",
                               "none"};
}  // namespace

}  // namespace sluice
