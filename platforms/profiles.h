// Hardware profiles: coherent defaults of one fabric generation (DCQCN's marking thresholds,
// the NIC's frame header and MTU, the switch buffer), each with its public source in
// docs/models/profiles.md. A profile replaces declared defaults only: anything a scenario's
// `params:` or `--set` gives wins, and derived defaults (the PFC headroom) follow from it. The
// "default" profile is the declared defaults themselves.
#pragma once
#include <string>
#include <vector>

#include "models/link/flow_control.h"

namespace sluice {

struct profile_default {
  const char* pattern;  // parameter glob, as in params:
  const char* value;
  bool cee_only;       // skipped on InfiniBand fabrics (RoCE header, the CEE switch buffer)
  const char* policy;  // "cp=dcqcn": only where the choice beside the parameter picks it; "" : any
};

struct hardware_profile {
  const char* name;
  const char* description;
  std::vector<profile_default> defaults;
};

const std::vector<hardware_profile>& hardware_profiles();
std::string hardware_profile_names();  // "default, 40g, 100g"
// `key` names the setting in the one-line error for an unknown name ("profile", "--profile").
const hardware_profile& hardware_profile_named(const std::string& name, const std::string& key);
// Sets the profile's defaults on every matching parameter declared so far; call before each pass
// of the overrides (policies declare their parameters between the passes).
void apply_profile(const hardware_profile& profile, link_layer layer);

}  // namespace sluice
