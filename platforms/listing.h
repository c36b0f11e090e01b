// The parameters and statistics of an elaborated fabric, filtered by a glob: what
// `sluice params` / `sluice stats` print and what Python's sluice.params()/stats() return.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "models/core/probe.h"
#include "models/core/stats.h"

namespace sluice {

// name, unit, default, value, range, change ("live": may change during a run, or "fixed"),
// description
using param_row = std::array<std::string, 7>;

// Throws config_error "<key>: '<match>' matches no parameter" when nothing matches.
std::vector<param_row> list_params(const std::string& match, const std::string& key);
std::vector<stat_registry::row> list_stats(const std::string& match, const std::string& key);
// Throws config_error "<key>: '<match>' matches no probe point" when nothing matches.
std::vector<const probe_point*> list_probes(const std::string& match, const std::string& key);

}  // namespace sluice
