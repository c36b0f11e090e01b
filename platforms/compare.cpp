#include "platforms/compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include "models/core/params.h"
#include "models/core/units.h"
#include "platforms/results_store.h"
#include "platforms/scenario.h"

namespace sluice {
namespace {

using nlohmann::json;

// Summaries are small (a 1024-host run's is tens of MB): read whole.
constexpr std::size_t max_summary_bytes = std::size_t{1} << 30;

// Numeric metrics by dotted name: "totals.drops", "flows.f3.fct_ns",
// "ports.sw0.port16.prio3.max_queue_bytes", "links.sw0-h1.utilization".
using metrics = std::map<std::string, double>;

void add_numbers(metrics& out, const std::string& prefix, const json& object) {
  for (const auto& [key, value] : object.items())
    if (value.is_number()) out[prefix + key] = value.get<double>();
}

metrics metrics_of(const json& s) {
  metrics m;
  if (s.contains("totals")) add_numbers(m, "totals.", s["totals"]);
  for (const json& f : s.value("flows", json::array()))
    add_numbers(m, "flows." + f.value("name", std::to_string(f.value("id", 0))) + ".", f);
  for (const json& p : s.value("ports", json::array()))
    add_numbers(m,
                "ports." + p.value("node", std::string("?")) + ".port" + std::to_string(p.value("port", 0)) + ".prio" +
                    std::to_string(p.value("priority", 0)) + ".",
                p);
  for (const json& l : s.value("links", json::array()))
    add_numbers(m, "links." + l.value("name", std::string("?")) + ".", l);
  return m;
}

// Identity fields of an entry, not metrics.
bool is_identity(const std::string& name) {
  for (const char* suffix : {".id", ".port", ".priority", ".src_id", ".dst_id"})
    if (name.size() > std::strlen(suffix) &&
        name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
      return true;
  return false;
}

std::string number(double v) {
  std::ostringstream o;
  o << std::setprecision(10) << v;
  return o.str();
}

void compare_inputs(std::ostringstream& out, const json& a, const json& b) {
  const json pa = a.value("provenance", json::object()), pb = b.value("provenance", json::object());
  std::vector<std::string> lines;
  for (const char* key : {"scenario_path", "scenario_sha256", "cc", "profile", "seed", "until", "sample_period",
                          "allow_inert", "sluice_version", "git_commit", "git_dirty"}) {
    const json va = pa.value(key, json()), vb = pb.value(key, json());
    if (va != vb) lines.push_back(std::string(key) + ": " + va.dump() + " -> " + vb.dump());
  }
  const json oa = pa.value("overrides", json::array()), ob = pb.value("overrides", json::array());
  if (oa != ob) {
    auto text = [](const json& o) {
      return o.value("origin", "") + " " + o.value("pattern", "") + "=" + o.value("value", "");
    };
    for (const json& o : oa)
      if (std::find(ob.begin(), ob.end(), o) == ob.end()) lines.push_back("override only in A: " + text(o));
    for (const json& o : ob)
      if (std::find(oa.begin(), oa.end(), o) == oa.end()) lines.push_back("override only in B: " + text(o));
    if (lines.empty() || lines.back().rfind("override only", 0) != 0)
      lines.push_back("overrides: the same, in another order");
  }
  if (!a.contains("provenance") || !b.contains("provenance"))
    lines.push_back("(a summary without provenance: written by an older Sluice)");
  out << "inputs:\n";
  if (lines.empty()) out << "  the same\n";
  for (const std::string& l : lines) out << "  " << l << '\n';
}

}  // namespace

json load_run_summary(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))  // not a folder or file: a run of a results store?
    if (const auto run = split_store_run(path)) return load_stored_summary(run->first, run->second, "compare");
  const std::string file = std::filesystem::is_directory(path, ec) ? path + "/summary.json" : path;
  const std::string text = read_input_file(file, "compare", max_summary_bytes);
  try {
    json s = json::parse(text);
    if (!s.is_object() || !s.contains("totals")) throw config_error("compare: '" + file + "' is not a Sluice summary");
    return s;
  } catch (const json::exception&) {
    throw config_error("compare: '" + file + "' is not JSON (a run folder or its summary.json)");
  }
}

std::string compare_runs(const json& a, const json& b, const std::string& a_name, const std::string& b_name,
                         const std::string& match) {
  std::ostringstream out;
  out << "A: " << a_name << "\nB: " << b_name << "\n";
  compare_inputs(out, a, b);
  const metrics ma = metrics_of(a), mb = metrics_of(b);
  std::map<std::string, std::pair<const double*, const double*>> all;
  for (const auto& [k, v] : ma) all[k].first = &v;
  for (const auto& [k, v] : mb) all[k].second = &v;
  std::vector<std::array<std::string, 5>> rows{{"metric", "A", "B", "B - A", "change"}};
  std::size_t same = 0;
  for (const auto& [name, values] : all) {
    if (is_identity(name) || !glob_match(match.c_str(), name.c_str())) continue;
    if (name == "totals.wall_time_s" || name == "totals.elaboration_s") continue;  // the host's, not the model's
    const auto [va, vb] = values;
    if (va && vb && *va == *vb) {
      ++same;
      continue;
    }
    std::array<std::string, 5> r{name, va ? number(*va) : "-", vb ? number(*vb) : "-", "", ""};
    if (va && vb) {
      r[3] = number(*vb - *va);
      if (*va != 0) r[4] = number(std::round((*vb - *va) / std::abs(*va) * 1000) / 10) + " %";
    }
    rows.push_back(r);
  }
  out << "metrics: " << rows.size() - 1 << " differ, " << same << " the same\n";
  if (rows.size() == 1) return out.str();
  std::array<std::size_t, 5> width{};
  for (const auto& r : rows)
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size() + 2);
  for (const auto& r : rows) {
    out << "  " << std::left << std::setw(static_cast<int>(width[0])) << r[0];
    for (std::size_t c = 1; c < r.size(); ++c) out << std::right << std::setw(static_cast<int>(width[c])) << r[c];
    out << '\n';
  }
  return out.str();
}

}  // namespace sluice
