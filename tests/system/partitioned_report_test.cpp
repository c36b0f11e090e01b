// Gathering a partitioned run's outputs (docs/parallel.md): one process runs the whole fabric,
// then emits the partial summary and partial series of each of P partitions in turn (its
// ownership set to each rank), as P processes would; merged, they must give summary.json and
// the CSVs of the single-process run byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "platforms/partial_summary.h"
#include "tests/support/harness.h"

using namespace sluice;
using nlohmann::json;

namespace {

enum class layout { blocks, round_robin, all_in_first };

// Switches by index blocks, round-robin, or all in partition 0; each NIC with its switch.
std::vector<uint32_t> owners(const fabric& f, uint32_t parts, layout how) {
  const topology_spec& t = f.spec().topology;
  std::vector<uint32_t> owner(t.nodes.size(), 0);
  std::size_t switches = 0;
  for (const node_spec& n : t.nodes) switches += n.is_switch;
  std::size_t index = 0;
  for (uint32_t id = 0; id < t.nodes.size(); ++id)
    if (t.nodes[id].is_switch) {
      owner[id] = how == layout::blocks        ? static_cast<uint32_t>(index * parts / switches)
                  : how == layout::round_robin ? static_cast<uint32_t>(index % parts)
                                               : 0;
      ++index;
    }
  for (uint32_t id = 0; id < t.nodes.size(); ++id)
    if (!t.nodes[id].is_switch) owner[id] = owner[f.node_id(f.peer_of(t.nodes[id].name, 0))];
  return owner;
}

std::map<std::string, std::string> read_outputs(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    files[e.path().filename().string()] = text.str();
  }
  return files;
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string lx, ly;
  for (int line = 1;; ++line) {
    const bool gx = static_cast<bool>(std::getline(x, lx)), gy = static_cast<bool>(std::getline(y, ly));
    if (!gx && !gy) return "same";
    if (!gx || !gy || lx != ly) return "line " + std::to_string(line) + ":\n  single: " + lx + "\n  merged: " + ly;
  }
}

struct partials {
  std::vector<json> summaries, series;
};

// Each rank's partials, as a process would send them (CBOR bytes); only rank 0 carries what the
// process as a whole measured (one process stands for all P here).
partials emit_partials(simulation& sim, const std::vector<uint32_t>& owner, uint32_t parts) {
  partials p;
  for (uint32_t rank = 0; rank < parts; ++rank) {
    sim.fabric_model().set_ownership(owner, rank);
    p.summaries.push_back(from_partial_bytes(to_partial_bytes(partial_summary(sim, rank == 0))));
    p.series.push_back(from_partial_bytes(to_partial_bytes(partial_series(sim))));
  }
  sim.fabric_model().set_ownership({}, 0);
  return p;
}

// A partial holds only its own entries: the links and ports of all partials add up to the
// single run's, and each object's counters are in one partial.
void expect_disjoint(const partials& p, const json& full) {
  std::size_t links = 0, ports = 0, counters = 0;
  for (const json& s : p.summaries) {
    links += s["links"].size();
    ports += s["ports"].size();
    for (const auto& c : s["counters"].items()) counters += c.key().rfind("sluice.", 0) != 0;
  }
  std::size_t object_counters = 0;
  for (const auto& c : full["counters"].items()) object_counters += c.key().rfind("sluice.", 0) != 0;
  EXPECT_EQ(links, full["links"].size());
  EXPECT_EQ(ports, full["ports"].size());
  EXPECT_EQ(counters, object_counters);
}

class partitioned_run {
 public:
  partitioned_run(const std::string& scenario_file, const std::string& until, const std::string& cc = "",
                  std::vector<std::pair<std::string, std::string>> sets = {}) {
    run_options o;
    o.until = parse_time(until, "until");
    o.cc = cc;
    o.sets = std::move(sets);
    sim_ = std::make_unique<simulation>(load_scenario_file(test::scenario_path(scenario_file)), o);
    sim_->samples().keep_workload_bytes_by_receiver();
    sim_->run();
    dir_ = std::filesystem::temp_directory_path() / ("sluice_partitioned_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    sim_->write_outputs((dir_ / "single").string());
    single_ = read_outputs((dir_ / "single").string());
  }
  ~partitioned_run() { std::filesystem::remove_all(dir_); }

  const std::map<std::string, std::string>& single() const { return single_; }
  simulation& sim() { return *sim_; }

  // The merged outputs of P partitions laid out `how`; the partials given to the merge in
  // reverse rank order when `reversed` (the merge does not depend on it).
  std::map<std::string, std::string> merged(uint32_t parts, layout how, bool reversed = false) {
    partials p = emit_partials(*sim_, owners(sim_->fabric_model(), parts, how), parts);
    expect_disjoint(p, sim_->summary());
    if (reversed) {
      std::reverse(p.summaries.begin(), p.summaries.end());
      std::reverse(p.series.begin(), p.series.end());
    }
    const std::string out = (dir_ / ("merged" + std::to_string(parts))).string();
    std::filesystem::remove_all(out);
    const json summary = merge_summaries(p.summaries);
    write_merged_outputs(out, summary, merge_series(p.series));
    merged_table_ = summary_table(summary);
    return read_outputs(out);
  }

  // Every P of 2, 3, 4 in both layouts gives the single run's files, byte for byte.
  void expect_identical_merges() {
    for (uint32_t parts : {2u, 3u, 4u})
      for (layout how : {layout::blocks, layout::round_robin}) {
        SCOPED_TRACE("P = " + std::to_string(parts) + (how == layout::blocks ? ", blocks" : ", round-robin"));
        const auto files = merged(parts, how, parts == 3);
        ASSERT_EQ(files.size(), single_.size());
        for (const auto& [name, text] : single_) {
          ASSERT_TRUE(files.count(name)) << name;
          EXPECT_TRUE(files.at(name) == text) << name << " differs at " << first_difference(text, files.at(name));
        }
        EXPECT_EQ(merged_table_, sim_->table());  // the stdout table, from the merged summary
      }
  }

 private:
  std::unique_ptr<simulation> sim_;
  std::filesystem::path dir_;
  std::map<std::string, std::string> single_;
  std::string merged_table_;
};

}  // namespace

TEST(PartitionedReport, FatTreeMergesToTheSingleRun) {
  partitioned_run run("fat-tree.yaml", "200us");
  run.expect_identical_merges();
}

TEST(PartitionedReport, LeafSpine1024MergesToTheSingleRun) {
  partitioned_run run("bench-leaf-spine-1024.yaml", "60us");
  run.expect_identical_merges();
}

// CNPs from the receivers' NICs to the senders' (in other partitions), with RED marks and rate limits.
TEST(PartitionedReport, DcqcnLeafSpineMergesWithItsCnps) {
  partitioned_run run("leaf-spine.yaml", "300us", "dcqcn");
  EXPECT_NE(run.single().at("summary.json").find("\"cnp_frames\": "), std::string::npos);
  EXPECT_GT(run.sim().summary()["totals"]["cnp_frames"].get<uint64_t>(), 0u);
  run.expect_identical_merges();
}

// Workload flows (the "all workload flows" column, rebuilt from each receiver's bytes), FCTs,
// and PFC pauses.
TEST(PartitionedReport, WebsearchMergesItsWorkloadColumnAndFcts) {
  partitioned_run run("websearch.yaml", "3ms");
  const json s = run.sim().summary();
  EXPECT_GT(s["totals"]["flows_completed"].get<uint64_t>(), 10u);
  EXPECT_GT(s["totals"]["pause_frames"].get<uint64_t>(), 0u);
  run.expect_identical_merges();
}

// PFC-heavy: a Clos incast that pauses ports across the fabric (the congestion tree).
TEST(PartitionedReport, PfcIncastMergesItsCongestionTree) {
  partitioned_run run("pcn-clos-incast.yaml", "1ms");
  EXPECT_GT(run.sim().summary()["congestion_tree"]["max_ports_paused"].get<uint64_t>(), 1u);
  run.expect_identical_merges();
}

// InfiniBand: credit columns, credit packets, FECN marks and BECNs.
TEST(PartitionedReport, InfinibandCcaMergesItsCreditView) {
  partitioned_run run("ib-fat-tree.yaml", "200us", "ib-cca");
  EXPECT_GT(run.sim().summary()["totals"]["fecn_marks"].get<uint64_t>(), 0u);
  run.expect_identical_merges();
}

// A deadlock cycle inside one partition is reported; one that spans partitions is not (each
// partition's detector sees only its own ports): the documented limitation.
TEST(PartitionedReport, DeadlockInsideOnePartitionMergesAcrossNot) {
  partitioned_run run("pfc-deadlock.yaml", "1ms");
  ASSERT_EQ(run.sim().summary()["deadlocks"].size(), 1u);
  EXPECT_EQ(run.merged(2, layout::all_in_first), run.single());
  const auto split = run.merged(3, layout::blocks);
  json merged = json::parse(split.at("summary.json")), single = json::parse(run.single().at("summary.json"));
  EXPECT_TRUE(merged["deadlocks"].empty());
  merged.erase("deadlocks");
  single.erase("deadlocks");
  EXPECT_EQ(merged, single);
}

// Per-port warnings (the PFC watchdog's, on every ring port) come back in port order, whichever
// partitions emitted them; with P = 4 one partition of the three switches is empty.
TEST(PartitionedReport, WatchdogWarningsMergeInPortOrder) {
  partitioned_run run("pfc-deadlock.yaml", "1ms", "",
                      {{"s*.port*.pfc.watchdog.action", "drop"},
                       {"s*.port*.pfc.watchdog.detect", "100us"},
                       {"s*.port*.pfc.watchdog.restore", "50us"}});
  EXPECT_GE(run.sim().summary()["warnings"].size(), 3u);
  run.expect_identical_merges();
}

// A partial left out, or one without its raw material, is an error, never a quietly short summary.
TEST(PartitionedReport, MissingPartialIsAnError) {
  partitioned_run run("fat-tree.yaml", "50us");
  partials p = emit_partials(run.sim(), owners(run.sim().fabric_model(), 2, layout::round_robin), 2);
  EXPECT_THROW(merge_summaries({p.summaries[0]}), std::runtime_error);
  EXPECT_THROW(merge_summaries({run.sim().summary()}), std::runtime_error);
  EXPECT_THROW(merge_summaries({}), std::runtime_error);
}
