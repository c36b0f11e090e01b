// Settings that do nothing must say so. A scenario `params:` entry or a `--set` whose every match
// has no effect in the final configuration (each parameter's owning model says when and why:
// param_base::inert_when) is a one-line error naming the setting and the reason, or, when the
// run allows it (--allow-inert, run.allow_inert, Python's allow_inert), a warning.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace sluice {

// One line per inert setting of `overrides`, in order: "<origin>: <pattern>=<value> has no effect:
// <why>". Call once the overrides and derived defaults are final.
std::vector<std::string> inert_settings(const std::vector<std::pair<std::string, std::string>>& overrides,
                                        const std::string& origin);

}  // namespace sluice
