#include "platforms/listing.h"

#include "models/core/params.h"
#include "models/core/units.h"

namespace sluice {

std::vector<param_row> list_params(const std::string& match, const std::string& key) {
  std::vector<param_row> rows;
  for (param_base* p : param_registry::instance().all()) {
    std::string name = p->name();
    if (!glob_match(match.c_str(), name.c_str())) continue;
    rows.push_back({name, p->unit(), p->default_string(), p->value_string(), p->range_string(),
                    p->live() ? "live" : "fixed", p->description()});
  }
  if (rows.empty()) throw config_error(key + ": '" + match + "' matches no parameter");
  return rows;
}

std::vector<stat_registry::row> list_stats(const std::string& match, const std::string& key) {
  std::vector<stat_registry::row> rows;
  for (stat_registry::row& r : stat_registry::instance().rows())
    if (glob_match(match.c_str(), r.name.c_str())) rows.push_back(std::move(r));
  if (rows.empty()) throw config_error(key + ": '" + match + "' matches no statistic");
  return rows;
}

std::vector<const probe_point*> list_probes(const std::string& match, const std::string& key) {
  std::vector<const probe_point*> points = probe_registry::instance().points(match);
  if (points.empty()) throw config_error(key + ": '" + match + "' matches no probe point");
  return points;
}

}  // namespace sluice
