// Platform builders: named, parameterised topologies (incast, dumbbell, parking-lot,
// pcn-basic) and the `custom` form that lists switches, NICs and links.
#pragma once
#include "platforms/topology.h"
#include "platforms/yaml_section.h"

namespace sluice {

// Reads the `platform:` section (its `kind` and that kind's keys) and returns the topology.
topology_spec build_platform(section& platform);

}  // namespace sluice
