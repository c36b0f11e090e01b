#include "platforms/profiles.h"

#include <unordered_map>

#include "models/core/params.h"

namespace sluice {

const std::vector<hardware_profile>& hardware_profiles() {
  // Sources and the reasoning for each value: docs/models/profiles.md.
  static const std::vector<hardware_profile> profiles = {
      {"default", "the declared defaults (every golden summary and test uses them)", {}},
      {"40g",
       "40G-era RoCE fabric (DCQCN, SIGCOMM 2015): VLAN-tagged PFC, Trident II-class 12 MB switch, RED 5 KB / "
       "200 KB / 1 %",
       {
           {"*.ecn.kmin", "5KB", false, "cp=dcqcn"},
           {"*.ecn.kmax", "200KB", false, "cp=dcqcn"},
           {"*.ecn.pmax", "0.01", false, "cp=dcqcn"},
           {"*.tcd.kmin", "5KB", false, ""},
           {"*.tcd.kmax", "200KB", false, ""},
           {"*.tcd.pmax", "0.01", false, ""},
           {"*.mtu", "1000B", true, ""},
           {"*.header", "66B", true, ""},  // RoCEv2 with the 802.1Q tag that carries the PFC priority
           {"*.mmu.buffer", "12MiB", true, ""},
       }},
      {"100g",
       "100/400G-era RoCE fabric (HPCC, SIGCOMM 2019, and its simulator): PFC by DSCP, 32 MB switch, 4 KB "
       "reserve per group, RED 400 KB / 1600 KB / 20 %",
       {
           {"*.ecn.kmin", "400KB", false, "cp=dcqcn"},
           {"*.ecn.kmax", "1600KB", false, "cp=dcqcn"},
           {"*.ecn.pmax", "0.2", false, "cp=dcqcn"},
           {"*.tcd.kmin", "400KB", false, ""},
           {"*.tcd.kmax", "1600KB", false, ""},
           {"*.tcd.pmax", "0.2", false, ""},
           {"*.mtu", "1000B", true, ""},
           {"*.header", "62B", true, ""},  // RoCEv2 untagged: PFC by DSCP
           {"*.mmu.buffer", "32MiB", true, ""},
           {"*.pfc.reserve", "4KiB", true, ""},
       }},
  };
  return profiles;
}

std::string hardware_profile_names() {
  std::string names;
  for (const hardware_profile& p : hardware_profiles()) names += std::string(names.empty() ? "" : ", ") + p.name;
  return names;
}

const hardware_profile& hardware_profile_named(const std::string& name, const std::string& key) {
  for (const hardware_profile& p : hardware_profiles())
    if (name == p.name) return p;
  throw config_error(key + ": '" + name + "' is not one of {" + hardware_profile_names() + "}");
}

void apply_profile(const hardware_profile& profile, link_layer layer) {
  param_registry& registry = param_registry::instance();
  for (const profile_default& d : profile.defaults) {
    if (d.cee_only && layer != link_layer::cee) continue;
    const std::string policy = d.policy;
    const std::size_t eq = policy.find('=');
    // The choices beside the matches ("sw0.port3.prio3.cp"), by name: one pass over the registry.
    std::unordered_map<std::string, const param_base*> choices;
    if (eq != std::string::npos)
      for (const param_base* c : registry.matching("*." + policy.substr(0, eq))) choices.emplace(c->name(), c);
    for (param_base* p : registry.matching(d.pattern)) {
      if (eq != std::string::npos) {
        const std::string name = p->name();
        const std::string beside = name.substr(0, name.size() - std::string(p->leaf()).size()) + policy.substr(0, eq);
        auto it = choices.find(beside);
        if (it == choices.end() || it->second->value_string() != policy.substr(eq + 1)) continue;
      }
      p->set_default_from_string(d.value);
    }
  }
}

}  // namespace sluice
