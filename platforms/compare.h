// `sluice compare A B`: what differs between two runs, from their summary.json files (or a
// results store's copy): the inputs (provenance: scenario, overrides, options, build) and the
// metrics (totals, per flow, per port and priority, per link), with deltas. docs/outputs.md#comparing-runs.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sluice {

// The summary of the run at `path`: a run folder (its summary.json), a summary.json file, or
// FILE:ID, run ID of a results store. config_error names the path when it is none of these or
// does not parse.
nlohmann::json load_run_summary(const std::string& path);

// The report of what differs between runs `a` and `b` (named `a_name`, `b_name`), as text:
// differing inputs first, then each metric that differs, with A, B, B - A and the relative
// change. Metrics equal in both are left out; `match` (a glob) keeps only metrics whose name
// matches (e.g. "totals.*", "flows.*.fct_ns").
std::string compare_runs(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_name,
                         const std::string& b_name, const std::string& match = "*");

}  // namespace sluice
