#include "platforms/scheme_parameters.h"

#include <algorithm>
#include <systemc>
#include <vector>

#include "models/cc/congestion_point.h"
#include "models/cc/control_sender.h"
#include "models/cc/notification_point.h"
#include "models/cc/reaction_point.h"
#include "models/cc/scheme.h"
#include "models/core/params.h"
#include "models/core/stats.h"
#include "platforms/fabric.h"

namespace sluice {
namespace {

enum class role { scheme_wide, cp, np, rp };

// A parameter some role policy (or a scheme, scheme_wide) declares: its leaf ("qcn.gd"), or for a
// scheme-wide one its whole name, and whether it is declared per class ("prio<k>.").
struct declared_param {
  role where;
  std::string policy;  // the policy's registered name, or the scheme's
  std::string leaf;
  bool per_class;
};

class scratch_owner final : public sc_core::sc_object {
 public:
  scratch_owner() : sc_object("sluice_parameter_census") {}
};
class no_injector final : public frame_injector_if {
 public:
  void inject(tlm::tlm_generic_payload*) override {}
  uint32_t node_id() const override { return 0; }
};
class no_sender final : public control_sender_if {
 public:
  void send_control(tlm::tlm_generic_payload*) override {}
  uint32_t node_id() const override { return 0; }
};

std::vector<declared_param> census(const mac_port& any_mac) {
  std::vector<declared_param> out;
  param_registry& params = param_registry::instance();
  stat_registry& stats = stat_registry::instance();
  // Scheme-wide parameters first: a role made below would declare them too, under no name of its own.
  for (const auto& s : cc_scheme_registry::instance().all()) {
    if (!s->declare) continue;
    const std::size_t mark = params.count();
    s->declare();
    for (const param_base* p : params.declared_since(mark))
      out.push_back({role::scheme_wide, s->name, p->name(), false});
  }
  scratch_owner owner;
  const std::string prefix = std::string(owner.name()) + ".";
  auto note = [&](role where, const std::string& policy, const auto& make) {
    const std::size_t mark = params.count(), stat_mark = stats.registrations();
    try {
      const auto made = make();
      for (const param_base* p : params.declared_since(mark))
        if (p->name().compare(0, prefix.size(), prefix) == 0) out.push_back({where, policy, p->leaf(), p->cls() >= 0});
    } catch (const std::exception&) {
      // A policy that cannot be made on a scratch owner is left out: its settings keep the
      // "no parameter matches" error.
    }
    stats.forget_since(stat_mark);
  };
  no_injector injector;
  no_sender sender;
  const flow_table no_flows;
  for (const auto& e : cp_policies::instance().entries())
    note(role::cp, e.name, [&] { return e.make(owner, 0, injector); });
  for (const auto& e : np_policies::instance().entries())
    note(role::np, e.name, [&] { return e.make(owner, sender, no_flows); });
  for (const auto& e : rp_policies::instance().entries())
    note(role::rp, e.name, [&] { return e.make(owner, any_mac); });
  return out;
}

const char* role_name(role r) {
  return r == role::cp ? "congestion point" : r == role::np ? "notification point" : "reaction point";
}

// The policy scheme `s` puts in role `r` ("none" for a role it leaves empty).
const std::string& policy_of(const cc_scheme& s, role r) { return r == role::cp ? s.cp : r == role::np ? s.np : s.rp; }

// The first choice of `d`'s role whose owner's name for `d` the pattern matches (nullptr: none).
const choice_param* matched_owner(const declared_param& d, const std::string& pattern, const fabric& f) {
  const int classes = f.spec().topology.classes;
  auto matches = [&](const std::string& owner, int cls) {
    const std::string name = owner + (cls >= 0 ? ".prio" + std::to_string(cls) + "." : ".") + d.leaf;
    return glob_match(pattern.c_str(), name.c_str());
  };
  if (d.where == role::cp) {
    for (const auto& sw : f.switches)
      for (const auto& port : sw->ports)
        for (int k = 0; k < (d.per_class ? classes : 1); ++k)
          if (matches(port->name(), d.per_class ? k : -1)) return &port->cp[k];
    return nullptr;
  }
  for (const auto& n : f.nics)
    for (int k = 0; k < (d.per_class ? classes : 1); ++k)
      if (matches(n->name(), d.per_class ? k : -1)) return d.where == role::np ? &n->np : &n->rp;
  return nullptr;
}

// Whether any owner of this fabric runs policy `name` in role `r`.
bool runs_anywhere(role r, const std::string& name, const fabric& f) {
  if (r == role::cp) {
    for (const auto& sw : f.switches)
      for (const auto& port : sw->ports)
        for (int k = 0; k < port->cp.classes(); ++k)
          if (port->cp.value(k) == name) return true;
    return false;
  }
  return std::any_of(f.nics.begin(), f.nics.end(),
                     [&](const auto& n) { return (r == role::np ? n->np() : n->rp()) == name; });
}

// "scheme 'qcn'", "scheme 'dcqcn+tcd' or 'ib-cca+tcd'": the schemes not in use that have `d`.
std::string unused_schemes_having(const declared_param& d, const fabric& f) {
  std::string names;
  for (const auto& s : cc_scheme_registry::instance().all()) {
    const bool has = d.where == role::scheme_wide ? s->name == d.policy : policy_of(*s, d.where) == d.policy;
    const auto& used = f.schemes_in_use();
    if (!has || std::find(used.begin(), used.end(), s.get()) != used.end()) continue;
    names += (names.empty() ? "scheme '" : "' or '") + s->name;
  }
  return names.empty() ? names : names + "'";
}

}  // namespace

std::string unused_scheme_reason(const std::string& pattern, const fabric& f, const std::string& in_use) {
  if (f.nics.empty()) return "";
  static const std::vector<declared_param> declared = census(f.nics.front()->port.mac);
  for (const declared_param& d : declared) {
    const choice_param* owner_choice = nullptr;
    if (d.where == role::scheme_wide ? !glob_match(pattern.c_str(), d.leaf.c_str())
                                     : !(owner_choice = matched_owner(d, pattern, f)))
      continue;
    const std::string schemes = unused_schemes_having(d, f);
    if (!schemes.empty() && (d.where == role::scheme_wide || !runs_anywhere(d.where, d.policy, f)))
      return "it belongs to " + schemes + ", which no flow of this run uses (" + in_use + ")";
    if (owner_choice)
      return "it is a parameter of the " + std::string(role_name(d.where)) + " '" + d.policy + "', and " +
             owner_choice->name() + " is '" + (*owner_choice)() + "'";
  }
  return "";
}

}  // namespace sluice
