#include "platforms/inert_settings.h"

#include "models/core/params.h"

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

}  // namespace sluice
