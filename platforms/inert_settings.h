// Settings that do nothing must say so. A scenario `params:` entry or a `--set` whose every match
// has no effect in the final configuration (each parameter's owning model says when and why:
// param_base::inert_when) is a one-line error naming the setting and the reason, or, when the
// run allows it (--allow-inert, run.allow_inert, Python's allow_inert), a warning. So is a setting
// that matches no parameter because it names one of a scheme the run does not use.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

// One line per inert setting of `overrides`, in order: "<origin>: <pattern>=<value> has no effect:
// <why>". Call once the overrides and derived defaults are final.
std::vector<std::string> inert_settings(const std::vector<std::pair<std::string, std::string>>& overrides,
                                        const std::string& origin);

class fabric;

// The overrides at positions `unmatched`, which matched no parameter: one line each, in order, for
// those that name a parameter of a scheme or role policy the run does not use where they point
// ("<origin>: <pattern>=<value> has no effect: it belongs to scheme 'qcn', which no flow of this
// run uses (--cc dcqcn)", platforms/scheme_parameters.*); config_error "<origin>: <pattern>: no
// parameter matches (see `sluice params`)" for the first that names nothing. `in_use` words the
// schemes in use.
std::vector<std::string> unmatched_settings(const std::vector<std::pair<std::string, std::string>>& overrides,
                                            const std::vector<std::size_t>& unmatched, const std::string& origin,
                                            const fabric& f, const std::string& in_use);

}  // namespace sluice
