// The results store: runs appended to one SQLite file (`--store FILE`, Python's `store=`), each
// with its provenance, totals, counters, flows, ports, links and optionally its CSV series. One
// writer for the CLI and Python (whose runs go through the native module); one schema, versioned,
// documented in docs/outputs.md#the-results-store. A run is written in one transaction; several
// processes may append to the same file at once (WAL, and a busy timeout: they take turns).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

struct sqlite3;

namespace sluice {

class simulation;

class results_store {
 public:
  // The schema this build writes and reads (the store's schema_version table holds its own).
  // 2: ports' congestion feedback counts (issue 22); 3: flows' ack_frames (issue 23: a TIMELY
  // run could not be stored).
  static constexpr int schema_version = 3;

  // Opens the store at `path`, created with its schema if missing. `key` names the option in
  // the one-line errors (a path that cannot be opened, a file that is not SQLite, another
  // schema version).
  results_store(const std::string& path, const std::string& key);
  ~results_store();
  results_store(const results_store&) = delete;
  results_store& operator=(const results_store&) = delete;

  // Appends `sim`'s run, in one transaction; returns its id (runs.id). `series`: also the CSV
  // series, as text; `tags`: a JSON object kept with the run (a sweep's point), or "".
  int64_t append(const simulation& sim, bool interrupted, bool series, const std::string& tags);

  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_, key_;
};

// "FILE:ID" when it names a run of a store: FILE is a regular file and ID a positive integer.
std::optional<std::pair<std::string, int64_t>> split_store_run(const std::string& text);

// Run `id` of the store at `path` as summary.json holds it (provenance, totals, counters,
// flows, ports, links, congestion_tree, deadlocks, warnings). `key` names the caller in errors.
nlohmann::json load_stored_summary(const std::string& path, int64_t id, const std::string& key);

}  // namespace sluice
