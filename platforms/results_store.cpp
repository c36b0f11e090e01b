#include "platforms/results_store.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "models/core/units.h"
#include "platforms/simulation.h"
#include "platforms/summary_sink.h"

namespace sluice {
namespace {

using nlohmann::json;

// ---- The schema (docs/outputs.md#the-results-store) -----------------------------------------
// Declared types carry meaning for readers: BOOLEAN holds 0/1 (read back as a bool), JSON TEXT
// holds a JSON document (TEXT affinity, read back parsed). The C++ and Python readers go by
// the declared type, so this list is the one place the schema is written down.

struct column {
  const char* name;
  const char* type;
};

struct table_spec {
  const char* name;
  std::vector<column> columns;  // after run_id
};

// The provenance object's members, one column each (its `seed` is the run's).
const std::vector<column> provenance_columns = {{"scenario_path", "TEXT"},
                                                {"scenario_sha256", "TEXT"},
                                                {"overrides", "JSON TEXT"},
                                                {"cc", "TEXT"},
                                                {"profile", "TEXT"},
                                                {"until", "TEXT"},
                                                {"sample_period", "TEXT"},
                                                {"allow_inert", "BOOLEAN"},
                                                {"sluice_version", "TEXT"},
                                                {"git_commit", "TEXT"},
                                                {"git_dirty", "BOOLEAN"},
                                                {"host", "TEXT"},
                                                {"date", "TEXT"}};

// The run's other one-per-run members of summary.json, and what only the store keeps.
const std::vector<column> run_columns = {
    {"scenario", "TEXT"},       {"seed", "INTEGER"},       {"congestion_tree", "JSON TEXT"},
    {"deadlocks", "JSON TEXT"}, {"warnings", "JSON TEXT"}, {"interrupted", "BOOLEAN"},
    {"tags", "JSON TEXT"}};

// summary.json's arrays of rows, one table each, one column per field.
const std::vector<table_spec> row_tables = {
    {"flows",
     {{"id", "INTEGER"},
      {"name", "TEXT"},
      {"src", "TEXT"},
      {"dst", "TEXT"},
      {"priority", "INTEGER"},
      {"kind", "TEXT"},
      {"start_ns", "REAL"},
      {"size_bytes", "INTEGER"},
      {"tx_bytes", "INTEGER"},
      {"rx_frames", "INTEGER"},
      {"rx_bytes", "INTEGER"},
      {"completed", "BOOLEAN"},
      {"cnp_frames", "INTEGER"},
      {"cnm_frames", "INTEGER"},
      {"ack_frames", "INTEGER"},  // only on flows that heard ACKs (TIMELY, the transport model); else NULL
      {"first_rx_ns", "REAL"},
      {"last_rx_ns", "REAL"},
      {"fct_ns", "REAL"},
      {"throughput_bps", "REAL"}}},
    {"ports",
     {{"node", "TEXT"},
      {"port", "INTEGER"},
      {"peer", "TEXT"},
      {"priority", "INTEGER"},
      {"lossless", "BOOLEAN"},
      {"pause_sent", "INTEGER"},
      {"refresh_sent", "INTEGER"},
      {"resume_sent", "INTEGER"},
      {"pause_received", "INTEGER"},
      {"resume_received", "INTEGER"},
      {"paused_time_ns", "REAL"},
      {"max_queue_bytes", "INTEGER"},
      {"mean_queue_bytes", "REAL"},
      {"max_ingress_bytes", "INTEGER"},
      {"max_headroom_bytes", "INTEGER"},
      {"headroom_bytes", "INTEGER"},
      {"frames_out", "INTEGER"},
      {"bytes_out", "INTEGER"},
      {"drops", "INTEGER"},
      {"ecn_marked", "INTEGER"},
      {"fecn_marked", "INTEGER"},
      {"cnm_sent", "INTEGER"},
      {"cnp_sent", "INTEGER"},
      {"cnp_received", "INTEGER"},
      {"cnm_received", "INTEGER"},
      {"credit_blocked_ns", "REAL"},  // InfiniBand only (NULL on CEE)
      {"credit_blocked_periods", "INTEGER"},
      {"credit_peak_bytes", "INTEGER"}}},
    {"links",
     {{"name", "TEXT"},
      {"link", "TEXT"},
      {"rate_bps", "REAL"},
      {"frames", "INTEGER"},
      {"bytes", "INTEGER"},
      {"utilization", "REAL"}}},
};

// Members of the summary by name and value: totals, counters (untyped values: integers stay
// integers); and the CSV series as their files' text.
const std::vector<table_spec> named_tables = {
    {"totals", {{"name", "TEXT NOT NULL"}, {"value", ""}}},
    {"counters", {{"name", "TEXT NOT NULL"}, {"value", "REAL"}}},
    {"series", {{"name", "TEXT NOT NULL"}, {"csv", "TEXT"}}},
};

std::string schema_sql() {
  std::string sql = "CREATE TABLE schema_version (version INTEGER NOT NULL);\n";
  sql += "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT";
  for (const auto* list : {&run_columns, &provenance_columns})
    for (const column& c : *list) sql += std::string(", ") + c.name + " " + c.type;
  sql += ");\n";
  for (const auto* tables : {&row_tables, &named_tables})
    for (const table_spec& t : *tables) {
      sql += std::string("CREATE TABLE ") + t.name + " (run_id INTEGER NOT NULL REFERENCES runs(id)";
      for (const column& c : t.columns) sql += std::string(", ") + c.name + (*c.type ? " " : "") + c.type;
      sql += std::string(");\nCREATE INDEX ") + t.name + "_by_run ON " + t.name + " (run_id);\n";
    }
  return sql + "INSERT INTO schema_version VALUES (" + std::to_string(results_store::schema_version) + ");\n";
}

// ---- SQLite, thinly ---------------------------------------------------------------------------

class statement {
 public:
  statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db));
  }
  ~statement() { sqlite3_finalize(s_); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  void bind(int i, const json& v) {
    int rc = SQLITE_OK;
    if (v.is_null()) {
      rc = sqlite3_bind_null(s_, i);
    } else if (v.is_boolean()) {
      rc = sqlite3_bind_int(s_, i, v.get<bool>() ? 1 : 0);
    } else if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      rc = u <= static_cast<uint64_t>(INT64_MAX) ? sqlite3_bind_int64(s_, i, static_cast<int64_t>(u))
                                                 : sqlite3_bind_double(s_, i, static_cast<double>(u));
    } else if (v.is_number_integer()) {
      rc = sqlite3_bind_int64(s_, i, v.get<int64_t>());
    } else if (v.is_number()) {
      rc = sqlite3_bind_double(s_, i, v.get<double>());
    } else {
      const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      rc = sqlite3_bind_text(s_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) throw std::runtime_error(sqlite3_errmsg(db_));
  }
  void bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  // One row of a query (true), or its end (false); a statement that returns nothing: false.
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
    return false;
  }
  void run() {  // an INSERT or UPDATE, ready to run again with new values
    step();
    sqlite3_reset(s_);
  }
  int columns() const { return sqlite3_column_count(s_); }
  std::string name(int c) const { return sqlite3_column_name(s_, c); }
  // A cell as JSON, by its declared type (BOOLEAN, JSON TEXT) and else by its stored type.
  json cell(int c) const {
    const char* declared = sqlite3_column_decltype(s_, c);
    const std::string type = declared ? declared : "";
    switch (sqlite3_column_type(s_, c)) {
      case SQLITE_NULL:
        return nullptr;
      case SQLITE_INTEGER:
        if (type == "BOOLEAN") return sqlite3_column_int64(s_, c) != 0;
        return sqlite3_column_int64(s_, c);
      case SQLITE_FLOAT:
        return sqlite3_column_double(s_, c);
      default: {
        const std::string text(reinterpret_cast<const char*>(sqlite3_column_text(s_, c)),
                               static_cast<std::size_t>(sqlite3_column_bytes(s_, c)));
        return type == "JSON TEXT" ? json::parse(text) : json(text);
      }
    }
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw std::runtime_error(why);
  }
}

// The store's schema version; 0 when it has no schema yet (a new, empty file). A SQLite file
// with other tables and no schema_version is someone else's: an error.
int stored_schema_version(sqlite3* db, const std::string& what) {
  statement tables(db, "SELECT count(*), sum(name = 'schema_version') FROM sqlite_master WHERE type = 'table'");
  tables.step();
  if (tables.cell(0) == 0) return 0;
  if (tables.cell(1) != 1) throw config_error(what + ": a SQLite database, but not a Sluice results store");
  statement version(db, "SELECT max(version) FROM schema_version");
  version.step();
  const json v = version.cell(0);
  return v.is_number_integer() ? v.get<int>() : 0;
}

void check_version(int version, const std::string& what) {
  if (version != results_store::schema_version)
    throw config_error(what + ": results store of schema version " + std::to_string(version) +
                       "; this Sluice reads and writes version " + std::to_string(results_store::schema_version));
}

std::string placeholders(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += i ? ", ?" : "?";
  return s;
}

// Writes the summary's members into the run's rows as they come.
class store_sink final : public summary_sink {
 public:
  store_sink(sqlite3* db, int64_t run_id) : db_(db), run_id_(run_id) {
    for (const table_spec& t : row_tables) {
      std::string names = "run_id";
      for (const column& c : t.columns) names += std::string(", ") + c.name;
      inserts_.emplace(
          t.name, std::make_unique<statement>(db, std::string("INSERT INTO ") + t.name + " (" + names + ") VALUES (" +
                                                      placeholders(t.columns.size() + 1) + ")"));
    }
    for (const table_spec& t : named_tables)
      inserts_.emplace(t.name, std::make_unique<statement>(
                                   db, std::string("INSERT INTO ") + t.name + " VALUES (" + placeholders(3) + ")"));
  }

  void member(const char* key, json value) override {
    const std::string k = key;
    if (k == "totals") {
      for (const auto& [name, v] : value.items()) named_row("totals", name, v);
    } else if (k == "provenance") {
      for (const auto& [name, v] : value.items())
        if (name != "seed") run_[field(provenance_columns, name, "provenance")] = v;
    } else {
      run_[field(run_columns, k, "summary")] = std::move(value);
    }
  }
  void open(const char* key, bool) override {
    open_ = key;
    if (open_ == "deadlocks") run_["deadlocks"] = json::array();
  }
  void element(json value) override {
    if (open_ == "deadlocks") {
      run_["deadlocks"].push_back(std::move(value));
      return;
    }
    const table_spec& t = spec_of(open_);
    statement& insert = *inserts_.at(open_);
    insert.bind(1, run_id_);
    std::size_t known = 0;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      auto it = value.find(t.columns[c].name);
      known += it != value.end();
      insert.bind(static_cast<int>(c + 2), it != value.end() ? *it : json());
    }
    if (known != value.size())  // a summary field the schema lacks: a new field needs a new schema version
      for (const auto& [name, v] : value.items()) field(t.columns, name, open_);
    insert.run();
  }
  void element(const std::string& key, json value) override { named_row(open_, key, value); }
  void close() override { open_.clear(); }

  void add_series(const std::string& name, const std::string& csv) { named_row("series", name, csv); }

  // The run's row, with everything it holds.
  void finish(bool interrupted, const std::string& tags) {
    run_["interrupted"] = interrupted;
    if (!tags.empty()) run_["tags"] = json::parse(tags);
    std::string sets;
    for (const auto& [name, v] : run_.items()) sets += (sets.empty() ? "" : ", ") + name + " = ?";
    statement update(db_, "UPDATE runs SET " + sets + " WHERE id = ?");
    int i = 1;
    for (const auto& [name, v] : run_.items()) update.bind(i++, v);
    update.bind(i, run_id_);
    update.run();
  }

  int64_t run_id() const { return run_id_; }

 private:
  static const table_spec& spec_of(const std::string& name) {
    for (const table_spec& t : row_tables)
      if (name == t.name) return t;
    throw std::logic_error("results store: no table for summary member '" + name + "'");
  }
  static std::string field(const std::vector<column>& columns, const std::string& name, const std::string& where) {
    for (const column& c : columns)
      if (name == c.name) return name;
    throw std::logic_error("results store: " + where + " has no column '" + name +
                           "' (platforms/results_store.cpp: add it, with a new schema version)");
  }
  void named_row(const std::string& table, const std::string& name, const json& value) {
    statement& insert = *inserts_.at(table);
    insert.bind(1, run_id_);
    insert.bind(2, json(name));
    insert.bind(3, value);
    insert.run();
  }

  sqlite3* db_;
  int64_t run_id_;
  std::map<std::string, std::unique_ptr<statement>> inserts_;
  std::string open_;
  json run_ = json::object();  // the runs row's columns, written last
};

sqlite3* open_db(const std::string& path, int flags, const std::string& key) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw config_error(key + ": cannot open '" + path + "': " + why);
  }
  // Another process appending holds the write lock for its one transaction: wait for it.
  sqlite3_busy_timeout(db, 300'000);
  return db;
}

}  // namespace

results_store::results_store(const std::string& path, const std::string& key) : path_(path), key_(key) {
  db_ = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, key);
  const std::string what = key + ": '" + path + "'";
  try {
    // Write-ahead logging: readers (Python, compare) never block the writers, and a writer's
    // transaction is all or nothing even if its process dies.
    // Switching a new file to WAL takes a lock SQLite does not wait for (its busy handler is not
    // called there): with several processes opening the store at once, one may be told "database
    // is locked" at once. The mode is the file's, so retry until one has set it.
    for (int attempt = 0;; ++attempt) {
      const int rc = sqlite3_exec(db_, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) break;
      if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || attempt == 30'000) exec(db_, "PRAGMA journal_mode = WAL");
      usleep(10'000);
    }
    // A commit syncs at checkpoints, not at every run: a power loss may lose the last runs,
    // never the store's consistency (SQLite's WAL guarantee), and a run costs no fsync.
    exec(db_, "PRAGMA synchronous = NORMAL");
    exec(db_, "BEGIN IMMEDIATE");  // two processes creating the schema at once: one does it
    const int version = stored_schema_version(db_, what);
    if (version == 0)
      exec(db_, schema_sql());
    else
      check_version(version, what);
    exec(db_, "COMMIT");
  } catch (const std::runtime_error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    if (dynamic_cast<const config_error*>(&e)) throw;
    throw config_error(what + ": " + e.what());
  }
}

results_store::~results_store() { sqlite3_close(db_); }

int64_t results_store::append(const simulation& sim, bool interrupted, bool series, const std::string& tags) {
  try {
    exec(db_, "BEGIN IMMEDIATE");
    try {
      exec(db_, "INSERT INTO runs DEFAULT VALUES");
      store_sink sink(db_, sqlite3_last_insert_rowid(db_));
      sim.emit_summary(sink);
      if (series)
        for (const auto& [name, s] : sim.csv_series()) {
          std::ostringstream csv;
          s->write_csv(csv, "time_us");
          sink.add_series(name, csv.str());
        }
      sink.finish(interrupted, tags);
      exec(db_, "COMMIT");
      return sink.run_id();
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);  // nothing of this run is kept
      throw;
    }
  } catch (const config_error&) {
    throw;
  } catch (const std::logic_error&) {
    throw;
  } catch (const std::exception& e) {
    throw config_error(key_ + ": cannot append the run to '" + path_ + "': " + e.what());
  }
}

std::optional<std::pair<std::string, int64_t>> split_store_run(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return std::nullopt;
  const std::string file = text.substr(0, colon), id = text.substr(colon + 1);
  if (id.find_first_not_of("0123456789") != std::string::npos || id.size() > 18) return std::nullopt;
  struct stat st {};
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return std::pair{file, std::stoll(id)};
}

json load_stored_summary(const std::string& path, int64_t id, const std::string& key) {
  sqlite3* db = open_db(path, SQLITE_OPEN_READONLY, key);
  const std::string what = key + ": '" + path + "'";
  try {
    const int version = stored_schema_version(db, what);
    if (version == 0) throw config_error(what + ": empty, not a Sluice results store");
    check_version(version, what);
    json s = json::object(), provenance = json::object();
    statement run(db, "SELECT * FROM runs WHERE id = ?");
    run.bind(1, id);
    if (!run.step()) {
      statement range(db, "SELECT min(id), max(id) FROM runs");
      range.step();
      throw config_error(what + " has no run " + std::to_string(id) +
                         (range.cell(0).is_null()
                              ? std::string(" (no runs)")
                              : " (ids " + range.cell(0).dump() + " to " + range.cell(1).dump() + ")"));
    }
    for (int c = 0; c < run.columns(); ++c) {
      const std::string name = run.name(c);
      bool in_provenance = false;
      for (const column& p : provenance_columns) in_provenance |= name == p.name;
      if (in_provenance)
        provenance[name] = run.cell(c);
      else if (name != "id" && name != "interrupted" && name != "tags")
        s[name] = run.cell(c);
    }
    provenance["seed"] = s["seed"];
    s["provenance"] = std::move(provenance);
    for (const table_spec& t : row_tables) {
      statement rows(db, std::string("SELECT * FROM ") + t.name + " WHERE run_id = ? ORDER BY rowid");
      rows.bind(1, id);
      json list = json::array();
      while (rows.step()) {
        json row = json::object();
        for (int c = 1; c < rows.columns(); ++c) row[rows.name(c)] = rows.cell(c);
        list.push_back(std::move(row));
      }
      s[t.name] = std::move(list);
    }
    for (const char* table : {"totals", "counters"}) {
      statement rows(db, std::string("SELECT name, value FROM ") + table + " WHERE run_id = ? ORDER BY rowid");
      rows.bind(1, id);
      json object = json::object();
      while (rows.step()) object[rows.cell(0).get<std::string>()] = rows.cell(1);
      s[table] = std::move(object);
    }
    // `run` is still prepared here: sqlite3_close would refuse (SQLITE_BUSY) and leak the
    // connection; close_v2 closes it once the last statement is finalized.
    sqlite3_close_v2(db);
    return s;
  } catch (const config_error&) {
    sqlite3_close(db);
    throw;
  } catch (const std::exception& e) {
    sqlite3_close(db);
    throw config_error(what + ": " + e.what());
  }
}

}  // namespace sluice
