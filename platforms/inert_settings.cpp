#include "platforms/inert_settings.h"

#include "models/core/params.h"
#include "platforms/scheme_parameters.h"

namespace sluice {

std::vector<std::string> inert_settings(const std::vector<std::pair<std::string, std::string>>& overrides,
                                        const std::string& origin) {
  std::vector<std::string> lines;
  for (const auto& [pattern, value] : overrides) {
    const std::vector<param_base*> matches = param_registry::instance().matching(pattern);
    std::string first_reason;
    bool inert = !matches.empty();
    for (const param_base* p : matches) {
      std::string why = p->inert_reason();
      if (why.empty()) {
        inert = false;
        break;
      }
      if (first_reason.empty()) first_reason = p->name() + ": " + why;
    }
    if (!inert) continue;
    const std::string setting = origin + ": " + pattern + "=" + value + " has no effect";
    if (matches.size() == 1 && matches[0]->name() == pattern)
      lines.push_back(setting + ": " + matches[0]->inert_reason());
    else
      lines.push_back(setting + " on any of its " + std::to_string(matches.size()) + " matches (" + first_reason + ")");
  }
  return lines;
}

std::vector<std::string> unmatched_settings(const std::vector<std::pair<std::string, std::string>>& overrides,
                                            const std::vector<std::size_t>& unmatched, const std::string& origin,
                                            const fabric& f, const std::string& in_use) {
  std::vector<std::string> lines;
  for (std::size_t i : unmatched) {
    const auto& [pattern, value] = overrides[i];
    const std::string why = unused_scheme_reason(pattern, f, in_use);
    if (why.empty()) throw config_error(origin + ": " + pattern + ": no parameter matches (see `sluice params`)");
    lines.push_back(origin + ": " + pattern + "=" + value + " has no effect: " + why);
  }
  return lines;
}

}  // namespace sluice
