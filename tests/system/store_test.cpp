// The results store (docs/outputs.md#the-results-store): `sluice run --store FILE` appends the
// run to a SQLite file, `sluice compare FILE:ID` reads it back.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>

#include "platforms/results_store.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {

// Removed first: a store left by an earlier process of the same (reused) pid would make this
// run's the second one in it.
std::string temp_path(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/store-" + std::to_string(getpid()) + "-" + name;
  std::filesystem::remove_all(path);
  return path;
}

test::command_result run_incast(const std::string& options) {
  auto r = test::run_cli("run " + test::scenario_path("incast.yaml") + " --until 200us " + options);
  EXPECT_EQ(r.status, 0) << r.output;
  return r;
}

// The first column of the first row of `sql` on the store, as text.
std::string query(const std::string& store, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  EXPECT_EQ(sqlite3_open_v2(store.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  const int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW && sqlite3_column_text(s, 0)) out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  EXPECT_TRUE(rc == SQLITE_ROW || rc == SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

// Every field of summary.json's rows equals the stored one (a field the summary leaves out is
// NULL in the store: the credit columns on a CEE fabric).
void expect_same_rows(const nlohmann::json& written, const nlohmann::json& stored, const std::string& what) {
  ASSERT_EQ(written.size(), stored.size()) << what;
  for (std::size_t i = 0; i < written.size(); ++i) {
    for (const auto& [key, value] : written[i].items())
      EXPECT_EQ(value, stored[i][key]) << what << "[" << i << "]." << key;
    for (const auto& [key, value] : stored[i].items())
      if (!written[i].contains(key)) {
        EXPECT_TRUE(value.is_null()) << what << "[" << i << "]." << key;
      }
  }
}

}  // namespace

TEST(Store, ARunReadsBackAsItsSummaryJson) {
  const std::string out = temp_path("rt-out"), store = temp_path("rt.sqlite");
  auto r = run_incast("--out " + out + " --store " + store);
  EXPECT_NE(r.output.find("stored as run 1 in " + store + " (sluice compare " + store + ":1)\n"), std::string::npos)
      << r.output;
  const nlohmann::json written = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  const nlohmann::json stored = load_stored_summary(store, 1, "test");
  for (const char* table : {"flows", "ports", "links"}) expect_same_rows(written[table], stored[table], table);
  EXPECT_EQ(written["totals"], stored["totals"]);
  EXPECT_EQ(written["counters"], stored["counters"]);
  EXPECT_EQ(written["provenance"], stored["provenance"]);
  for (const char* member : {"scenario", "seed", "congestion_tree", "deadlocks", "warnings"})
    EXPECT_EQ(written[member], stored[member]) << member;
  // compare reads either: the same run in a folder and in the store differs in nothing.
  auto same = test::run_cli("compare " + out + " " + store + ":1");
  ASSERT_EQ(same.status, 0) << same.output;
  EXPECT_NE(same.output.find("inputs:\n  the same\nmetrics: 0 differ"), std::string::npos) << same.output;
  EXPECT_EQ(query(store, "SELECT version FROM schema_version"), std::to_string(results_store::schema_version));
  EXPECT_EQ(query(store, "PRAGMA journal_mode"), "wal");
  // Without --store-series the series stay out of the store.
  EXPECT_EQ(query(store, "SELECT count(*) FROM series"), "0");
}

TEST(Store, ARunWithAcksIsStored) {
  // TIMELY's flows carry ack_frames: a store without the column refused the whole run.
  const std::string out = temp_path("ack-out"), store = temp_path("ack.sqlite");
  auto r = test::run_cli("run " + test::scenario_path("dumbbell-timely.yaml") + " --until 300us -q --out " + out +
                         " --store " + store);
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json written = nlohmann::json::parse(test::slurp(out + "/summary.json"));
  ASSERT_GT(written["flows"][0].value("ack_frames", 0), 0) << written["flows"][0];
  expect_same_rows(written["flows"], load_stored_summary(store, 1, "test")["flows"], "flows");
}

TEST(Store, TwoRunsAreAppendedAndComparedByTheirIds) {
  const std::string store = temp_path("two.sqlite");
  run_incast("-q --store " + store);
  auto second = run_incast("--seed 3 --set sw0.mmu.threshold=static --store " + store);
  EXPECT_NE(second.output.find("stored as run 2 in "), std::string::npos) << second.output;
  EXPECT_EQ(query(store, "SELECT group_concat(id || ':' || seed) FROM runs"), "1:1,2:3");
  auto r = test::run_cli("compare " + store + ":1 " + store + ":2 --match 'totals.*'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("A: " + store + ":1\nB: " + store + ":2\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  seed: 1 -> 3\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("override only in B: --set sw0.mmu.threshold=static\n"), std::string::npos) << r.output;
  const nlohmann::json a = load_stored_summary(store, 1, "test"), b = load_stored_summary(store, 2, "test");
  ASSERT_NE(a["totals"]["packet_hops"], b["totals"]["packet_hops"]);
  EXPECT_NE(r.output.find("totals.packet_hops"), std::string::npos) << r.output;
}

TEST(Store, SeriesAreKeptAsTheirCsvFiles) {
  const std::string out = temp_path("series-out"), store = temp_path("series.sqlite");
  run_incast("-q --out " + out + " --store " + store + " --store-series");
  EXPECT_EQ(query(store, "SELECT group_concat(name) FROM series"),
            "queue_depth,link_throughput,flow_throughput,paused_fraction,flow_rate,buffer_occupancy");
  for (const char* name : {"queue_depth", "link_throughput", "flow_rate", "buffer_occupancy"})
    EXPECT_EQ(query(store, std::string("SELECT csv FROM series WHERE name = '") + name + "'"),
              test::slurp(out + "/" + name + ".csv"))
        << name;
}

TEST(Store, ConcurrentWritersEachAppendTheirRun) {
  // Four processes start together, the first ones creating the schema at the same time.
  const std::string store = temp_path("concurrent.sqlite");
  std::string cmd;
  for (int seed = 1; seed <= 4; ++seed)
    cmd += "timeout 120 " + std::string(SLUICE_BINARY) + " run " + test::scenario_path("incast.yaml") +
           " --until 100us -q --seed " + std::to_string(seed) + " --store " + store + " & ";
  ASSERT_EQ(std::system((cmd + "wait").c_str()), 0);
  EXPECT_EQ(query(store, "SELECT group_concat(seed) FROM (SELECT seed FROM runs ORDER BY seed)"), "1,2,3,4");
  EXPECT_EQ(query(store, "SELECT count(DISTINCT run_id) FROM flows"), "4");
  EXPECT_EQ(query(store, "PRAGMA integrity_check"), "ok");
}

TEST(Store, BadStoresAreOneLineErrors) {
  const std::string incast = "run " + test::scenario_path("incast.yaml") + " --until 20us ";
  test::expect_cli_error(incast + "--store /nonexistent/folder/runs.sqlite",
                         "--store: cannot open '/nonexistent/folder/runs.sqlite': unable to open database file");
  const std::string text = test::write_temp("notes.txt", "these are not the runs you are looking for\n");
  test::expect_cli_error(incast + "--store " + text, "--store: '" + text + "': file is not a database");
  test::expect_cli_error(incast + "--store-series", "--store-series: needs --store FILE");
  test::expect_cli_error(incast + "--store ''", "--store: '' is empty");
  test::expect_cli_error("params " + test::scenario_path("incast.yaml") + " --store x.sqlite",
                         "--store: applies to 'run' only");
  // Someone else's SQLite file, and a store of another schema version, are left alone.
  const std::string other = temp_path("other.sqlite");
  query(other, "CREATE TABLE notes (text TEXT)");
  test::expect_cli_error(incast + "--store " + other, "a SQLite database, but not a Sluice results store");
  const std::string store = temp_path("versions.sqlite");
  run_incast("-q --store " + store);
  test::expect_cli_error("compare " + store + ":1 " + store + ":7",
                         "compare: '" + store + "' has no run 7 (ids 1 to 1)");
  const std::string empty = test::write_temp("empty.sqlite", "");
  test::expect_cli_error("compare " + empty + ":1 " + store + ":1",
                         "compare: '" + empty + "': empty, not a Sluice results store");
  query(store, "UPDATE schema_version SET version = 99");
  test::expect_cli_error(incast + "--store " + store,
                         "results store of schema version 99; this Sluice reads and writes version " +
                             std::to_string(results_store::schema_version));
}
