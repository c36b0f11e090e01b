// Platform builders: named, parameterised topologies (incast, dumbbell, parking-lot, pcn-basic,
// leaf-spine, fat-tree) and the `custom` form that lists switches, NICs and links.
//
// Kinds live in a registry: name -> builder. The built-in kinds are listed in one table in
// builders.cpp; adding a kind is writing its builder and adding one line there (or calling
// register_platform_kind before the scenario is loaded).
#pragma once
#include <string>
#include <vector>

#include "platforms/topology.h"
#include "platforms/yaml_section.h"

namespace sluice {

// Reads the kind's own keys from `platform:` (the caller checks for unknown keys afterwards).
using platform_builder = topology_spec (*)(section& platform);

// Adds (or replaces) a kind. Not thread-safe: call before loading scenarios.
void register_platform_kind(const std::string& kind, platform_builder build);
// The registered kinds, in registration order.
std::vector<std::string> platform_kinds();

// Reads the `platform:` section (its `kind` and that kind's keys) and returns the topology.
// An unknown kind is an error listing the registered ones.
topology_spec build_platform(section& platform);

}  // namespace sluice
