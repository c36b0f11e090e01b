// The command line: bad input gives one clear line and a non-zero exit; params and outputs work.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/support/harness.h"

using namespace sluice;

namespace {
using test::expect_cli_error;
using test::write_temp;

// Runs the binary with SYSTEMC_DISABLE_COPYRIGHT_MESSAGE unset; returns its stderr only.
std::string stderr_without_banner_variable(const std::string& args) {
  std::string cmd = "env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE timeout 120 " + std::string(SLUICE_BINARY) + " " + args +
                    " 2>&1 >/dev/null";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return "popen failed";
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

std::string replace_first(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

const char* good = R"(
platform: {kind: incast, senders: 2}
traffic: [{kind: constant, src: "h*", dst: r0, rate: 10Gbps, priority: 3}]
run: {until: 50us}
)";
}  // namespace

TEST(Cli, MalformedYaml) {
  expect_cli_error("run " + write_temp("bad.yaml", "platform: [kind: incast\n"), "malformed YAML");
}

TEST(Cli, MissingFile) { expect_cli_error("run /nonexistent/scenario.yaml", "/nonexistent/scenario.yaml"); }

TEST(Cli, UnknownScenarioKey) {
  expect_cli_error("run " + write_temp("k.yaml", std::string(good) + "topolgy: {}\n"), "scenario.topolgy");
}

TEST(Cli, UnreachableDestination) {
  const char* islands = R"(
platform:
  kind: custom
  switches: [s0, s1]
  nics: [a, b]
  links: [{a: a, b: s0}, {a: b, b: s1}]
traffic: [{kind: constant, src: a, dst: b, rate: 1Gbps}]
)";
  expect_cli_error("run " + write_temp("island.yaml", islands), "'b' is unreachable from 'a'");
}

TEST(Cli, BadSetValueUnitAndPattern) {
  std::string s = write_temp("good.yaml", good);
  expect_cli_error("run " + s + " --set 'sw*.port*.pfc.xoff=96 parsecs'", "sw0.port0.pfc.xoff");
  expect_cli_error("run " + s + " --set 'sw0.mmu.alpha=-1'", "sw0.mmu.alpha");
  expect_cli_error("run " + s + " --set 'sw0-r0.rate=0Gbps'", "sw0-r0.rate");
  expect_cli_error("run " + s + " --set 'nosuch.*=1'", "nosuch.*");
  expect_cli_error("run " + s + " --set novalue", "PATH=VALUE");
  expect_cli_error("run " + s + " --until 5", "--until");
  expect_cli_error("run " + s + " --until 0ms", "--until");
  expect_cli_error("run " + s + " --sample-period 0us", "--sample-period");
  expect_cli_error("run " + s + " --sample-period fast", "--sample-period");
  expect_cli_error("run " + s + " --sample-period 1ps --until 2ms", "more than 1000000 samples");
  expect_cli_error("run " + s + " --until 1e30s", "--until");
  expect_cli_error("run " + s + " --seed -1", "--seed");
  expect_cli_error("jump " + s, "jump");
  expect_cli_error("run " + s + " --frobnicate", "frobnicate");
}

TEST(Cli, ParamsListsEveryParameterWithUnitDefaultValueRangeAndDescription) {
  std::string s = write_temp("p.yaml", good);
  auto r =
      test::run_cli("params " + s + " --set 'sw*.mmu.threshold=static' --set 'sw*.port*.pfc.xoff=96KiB'", "/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  // The xoff of every port shows the override next to its default.
  std::size_t rows = 0, pos = 0;
  while ((pos = r.output.find("pfc.xoff ", pos)) != std::string::npos) {
    ++rows;
    ++pos;
  }
  EXPECT_EQ(rows, 3u);  // sw0 has 3 ports
  for (const char* name : {"sw0.pipeline", "sw0.mmu.alpha", "h0-sw0.rate", "h0-sw0.delay", "h0.mtu",
                           "sw0.port2.prio3.weight", "sw0.port2.pfc.headroom", "h1.port0.pfc.response"})
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  std::string line = r.output.substr(r.output.find("sw0.port1.pfc.xoff"));
  line = line.substr(0, line.find('\n'));
  EXPECT_NE(line.find("bytes"), std::string::npos) << line;
  EXPECT_NE(line.find("48KiB"), std::string::npos) << line;   // default
  EXPECT_NE(line.find("96KiB"), std::string::npos) << line;   // current value
  EXPECT_NE(line.find("["), std::string::npos) << line;       // range
  EXPECT_NE(line.find(" live "), std::string::npos) << line;  // may change during a run
  line = r.output.substr(r.output.find("sw0.mmu.buffer"));
  EXPECT_NE(line.substr(0, line.find('\n')).find(" fixed "), std::string::npos) << line;
}

TEST(Cli, RunWritesSummaryAndSeries) {
  std::string dir = ::testing::TempDir() + "/cli-out-" + std::to_string(getpid());
  auto r = test::run_cli("run " + write_temp("o.yaml", good) + " --out " + dir, "/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Links"), std::string::npos);
  std::ifstream in(dir + "/summary.json");
  nlohmann::json j = nlohmann::json::parse(in);
  for (const char* k :
       {"drops", "pause_frames", "cnp_frames", "cnm_frames", "packet_hops", "sim_time_ns", "wall_time_s"})
    EXPECT_TRUE(j["totals"].contains(k)) << k;
  EXPECT_EQ(j["totals"]["sim_time_ns"], 50000.0);
  std::ifstream q(dir + "/queue_depth.csv");
  std::string header;
  std::getline(q, header);
  EXPECT_EQ(header.rfind("time_us,sw0.port0.p3", 0), 0u) << header;
  // Every series has one row per 10 us sample period of the 50 us run, the last at 50 us.
  for (const char* csv :
       {"/queue_depth.csv", "/link_throughput.csv", "/flow_throughput.csv", "/paused_fraction.csv", "/flow_rate.csv"}) {
    std::ifstream in(dir + csv);
    std::string line, last;
    int rows = -1;
    while (std::getline(in, line)) {
      ++rows;
      last = line;
    }
    EXPECT_EQ(rows, 5) << csv;
    EXPECT_EQ(last.rfind("50.000,", 0), 0u) << csv << ": " << last;
  }
}

// Every scenario in scenarios/ (the benchmarks, bench-*, excepted: they are sized to be slow).
TEST(Cli, EveryShippedScenarioRunsCleanly) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SLUICE_SOURCE_DIR) + "/scenarios"))
    if (e.path().extension() == ".yaml" && e.path().stem().string().rfind("bench-", 0) != 0)
      names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  EXPECT_GE(names.size(), 9u);  // the nine shipped when this test was written
  for (const std::string& name : names) {
    std::string dir = ::testing::TempDir() + "/scn-" + std::to_string(getpid()) + "-" + name;
    auto r =
        test::run_cli("run " + test::scenario_path(name + ".yaml") + " --until 300us -q --out " + dir, "/dev/null");
    ASSERT_EQ(r.status, 0) << name << ": " << r.output;
    std::ifstream in(dir + "/summary.json");
    nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["totals"]["drops"], 0) << name;
    EXPECT_GT(j["totals"]["packet_hops"].get<uint64_t>(), 100u) << name;  // pfc-deadlock stops early
    EXPECT_TRUE(j["warnings"].empty()) << name;
  }
}

TEST(Cli, EventRateOutsideTheLinkRangeIsRejectedBeforeTheRun) {
  std::string s = write_temp("ev.yaml", std::string(good) + "events: [{at: 10us, link: sw0-r0, rate: 20Tbps}]\n");
  expect_cli_error("run " + s, "events[0].rate: '20Tbps' is outside the valid range");
}

TEST(Cli, StatsListsEveryCounterWithUnitAndDescription) {
  auto r = test::run_cli("stats " + write_temp("s.yaml", good) + " --match 'sw0.port2.prio3.*'", "/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* name : {"sw0.port2.prio3.queue_max_bytes", "sw0.port2.prio3.pause_sent",
                           "sw0.port2.prio3.paused_time", "sw0.port2.prio3.headroom_peak_bytes"})
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  std::string line = r.output.substr(r.output.find("sw0.port2.prio3.paused_time"));
  line = line.substr(0, line.find('\n'));
  EXPECT_NE(line.find(" ns "), std::string::npos) << line;
  EXPECT_NE(line.find("paused"), std::string::npos) << line;
}

TEST(Cli, ProbesListsEveryPointWithItsEvent) {
  auto r = test::run_cli("probes " + write_temp("p.yaml", good) + " --match 'sw0.port2.*'", "/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* name :
       {"sw0.port2.mac.tx_start", "sw0.port2.mac.rx_end", "sw0.port2.egress.enqueue", "sw0.port2.egress.dequeue",
        "sw0.port2.egress.mark", "sw0.port2.drop", "sw0.port2.pfc.pause_on", "sw0.port2.pfc.pause_off"})
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  expect_cli_error("probes " + write_temp("p2.yaml", good) + " --match 'nope*'",
                   "--match: 'nope*' matches no probe point");
}

TEST(Cli, SamplePeriodFromTheCommandLine) {
  std::string dir = ::testing::TempDir() + "/cli-sp-" + std::to_string(getpid());
  auto r = test::run_cli("run " + write_temp("sp.yaml", good) + " -q --sample-period 5us --out " + dir, "/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(dir + "/link_throughput.csv");
  std::string line;
  int rows = -1;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 10);  // 50 us / 5 us
}

TEST(Cli, PrintsNoSystemcBannerEvenWithoutTheVariable) {
  EXPECT_EQ(stderr_without_banner_variable("run " + write_temp("nb.yaml", good) + " -q"), "");
  EXPECT_EQ(stderr_without_banner_variable("run /nonexistent/x.yaml"),
            "sluice: error: scenario file: cannot open '/nonexistent/x.yaml'\n");
}

TEST(Cli, EmptyOptionValuesAndOptionsOfAnotherCommandAreErrors) {
  std::string s = write_temp("opt.yaml", good);
  expect_cli_error("run " + s + " --until ''", "--until: ''");
  expect_cli_error("run " + s + " --sample-period ''", "--sample-period: ''");
  expect_cli_error("run " + s + " --out ''", "--out: ''");
  expect_cli_error("run " + s + " --seed ''", "--seed");
  expect_cli_error("run " + s + " --match 'sw0.*'", "--match: applies to 'params', 'stats' and 'probes'");
  expect_cli_error("params " + s + " --match ''", "--match: ''");
  expect_cli_error("params " + s + " --until 1ms", "--until: applies to 'run' only");
  expect_cli_error("stats " + s + " --out /tmp/x", "--out: applies to 'run' only");
  expect_cli_error("stats " + s + " --set 'h0.mtu=500B'", "--set: applies to 'run' and 'params'");
}

TEST(Cli, HexadecimalValuesAreRejected) {
  std::string s = write_temp("hex.yaml", good);
  expect_cli_error("run " + s + " --until 0x10us", "--until: '0x10us' is not a decimal number");
  expect_cli_error("run " + s + " --set 'h0.mtu=0x100'", "h0.mtu");
  expect_cli_error("run " + write_temp("hex2.yaml", std::string(good) + "params: {sw0.mmu.alpha: inf}\n"),
                   "sw0.mmu.alpha");
}

TEST(Cli, BadNodeNameFailsBeforeTheRunAndLeavesNoSummary) {
  std::string dir = ::testing::TempDir() + "/cli-badname-" + std::to_string(getpid());
  for (const char* name : {"\"a\\x01\"", "\"a\\nb\"", "\"a\xff\""}) {
    std::string yaml = std::string(
        "platform: {kind: custom, switches: [s0], nics: [N, b], links: [{a: N, b: s0}, "
        "{a: b, b: s0}]}\ntraffic: [{kind: constant, src: b, dst: N, rate: 1Gbps}]\n");
    for (std::size_t at; (at = yaml.find("N,")) != std::string::npos || (at = yaml.find("N}")) != std::string::npos;)
      yaml.replace(at, 1, name);
    expect_cli_error("run " + write_temp("name.yaml", yaml) + " --out " + dir, "node name");
  }
  EXPECT_FALSE(std::ifstream(dir + "/summary.json").good());
}

TEST(Cli, SampleMemoryIsBoundedNotJustTheRowCount) {
  // 1 000 001 rows were allowed whatever the width: 10 000 flow columns made that 78 GiB.
  const char* wide = R"(
platform: {kind: incast, senders: 100}
traffic: [{kind: constant, src: "h*", dst: r0, rate: 10Mbps, count: 100}]
run: {until: 10s, sample_period: 10us}
)";
  std::string s = write_temp("wide.yaml", wide);
  expect_cli_error("run " + s, "run.sample_period: '10us' over 10s keeps about");
  expect_cli_error("run " + s, "at most 2 GiB");
  expect_cli_error("run " + s + " --sample-period 20us", "--sample-period: '20us' over 10s");
  auto r = test::run_cli("run " + s + " -q --until 20us", "&1");  // 3 rows: fine
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(Cli, TinyMtuGivesMinimumSizeFramesNotOneByteFrames) {
  std::string dir = ::testing::TempDir() + "/cli-mtu-" + std::to_string(getpid());
  auto r = test::run_cli("run " + write_temp("mtu.yaml", good) + " -q --set '*.mtu=1B' --out " + dir, "&1");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(dir + "/summary.json");
  nlohmann::json c = nlohmann::json::parse(in)["counters"];
  const double frames = c["h0.prio3.frames_sent"], bytes = c["h0.prio3.bytes_sent"];
  ASSERT_GT(frames, 0);
  EXPECT_DOUBLE_EQ(bytes / frames, 64.0);  // 1 B of payload, padded to the Ethernet minimum
}

TEST(Cli, LongLinkDelayDerivesItsHeadroomAndRuns) {
  // 200 ms at 40 Gb/s needs about 2 GB of headroom: the derived default must not fail its range.
  std::string s = write_temp("far.yaml", replace_first(good, "senders: 2}", "senders: 2, link_delay: 200ms}"));
  auto p = test::run_cli("params " + s + " --match 'sw0.port0.pfc.headroom'", "&1");
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_NE(p.output.find("sw0.port0.pfc.headroom"), std::string::npos) << p.output;
  // 2 x 200 ms x 5 GB/s + 3 x 1000 B + 64 B, rounded up to KiB: about 1.9 GiB.
  EXPECT_NE(p.output.find("1953128KiB  1953128KiB"), std::string::npos) << p.output;
  auto r = test::run_cli("run " + s + " -q --until 20us", "&1");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(Cli, UnwritableOutFolderFailsBeforeTheRun) {
  std::string file = write_temp("not-a-folder", "x");
  // 10 s of simulated time would take long: the error must come first.
  expect_cli_error("run " + write_temp("out.yaml", good) + " --until 10s --sample-period 1ms --out " + file,
                   "--out: cannot create");
}

TEST(Cli, ScenarioFileMustBeABoundedRegularFile) {
  expect_cli_error("run /dev/zero", "scenario file: '/dev/zero' is not a regular file");
  expect_cli_error("run /dev/stdin < /dev/null", "scenario file: '/dev/stdin' is not a regular file");
  expect_cli_error("run " + ::testing::TempDir(), "is not a regular file");
  std::string big = write_temp("big.yaml", "# " + std::string(max_scenario_bytes, 'x') + "\n");
  expect_cli_error("run " + big, "is larger than 16777216 bytes");
}

TEST(Cli, CtrlCStopsTheRunAndKeepsWhatWasMeasured) {
  // pcn-basic for 10 s of simulated time takes many seconds of wall time; SIGINT after 1 s ends
  // it cleanly at the next check (every 10 s / 200 = 50 ms simulated): exit 130, and a summary
  // and series of the time reached, which is a multiple of 50 ms and short of 10 s.
  std::string dir = ::testing::TempDir() + "/cli-int-" + std::to_string(getpid());
  std::string cmd = "timeout --preserve-status -s INT 1 " + std::string(SLUICE_BINARY) + " run " +
                    test::scenario_path("pcn-basic.yaml") + " --until 10s --sample-period 10ms -q --out " + dir +
                    " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 4096> buf;
  std::string output;
  for (std::size_t n; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) output.append(buf.data(), n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 130) << output;
  EXPECT_EQ(output.rfind("sluice: interrupted at ", 0), 0u) << output;
  const nlohmann::json s = nlohmann::json::parse(test::slurp(dir + "/summary.json"));
  const double reached_ns = s["totals"]["sim_time_ns"];
  EXPECT_GT(reached_ns, 0);
  EXPECT_LT(reached_ns, 10e9);
  EXPECT_EQ(std::fmod(reached_ns, 50e6), 0) << reached_ns;
  std::ifstream in(dir + "/queue_depth.csv");
  std::string line;
  int rows = -1;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, static_cast<int>(reached_ns / 10e6));  // one row per 10 ms reached
}

// Window partitions (docs/parallel.md): a count from 1 to 254, in one process, and not with what
// is written in event order or stops at a model's time.
TEST(Cli, WindowPartitionsRefuseWhatWindowsCannotOrder) {
  const std::string fat_tree = "run " + test::scenario_path("fat-tree.yaml");
  expect_cli_error(fat_tree + " --window-partitions 0", "--window-partitions: '0' is not from 1 to 254");
  expect_cli_error(fat_tree + " --window-partitions 2 --partitions 2",
                   "--window-partitions: not with --partitions (windows are one process's; docs/parallel.md)");
  expect_cli_error(fat_tree + " --window-partitions 2 --trace-frames flow=1 --out /tmp/sluice-cli-windows",
                   "--trace-frames: not with --window-partitions (written in event order; docs/parallel.md)");
  expect_cli_error(fat_tree + " --window-partitions 99",
                   "--window-partitions 99: more partitions than the fabric's 20 switches");
  expect_cli_error("run " + test::scenario_path("websearch.yaml") + " --window-partitions 2",
                   "run.stop_when_done: not with --window-partitions");
  expect_cli_error("params " + test::scenario_path("fat-tree.yaml") + " --window-partitions 2",
                   "--window-partitions: applies to 'run' only, not 'params'");
}

// Threads for the windows' partitions (docs/parallel.md): only with windows, at most one a partition.
TEST(Cli, WindowThreadsNeedWindowPartitions) {
  const std::string fat_tree = "run " + test::scenario_path("fat-tree.yaml");
  expect_cli_error(fat_tree + " --window-threads 2", "--window-threads: '2' needs --window-partitions 2 or more");
  expect_cli_error(fat_tree + " --window-threads 1", "--window-threads: '1' needs --window-partitions 2 or more");
  expect_cli_error(fat_tree + " --window-partitions 2 --window-threads 3",
                   "--window-threads: '3' is more than the 2 --window-partitions");
  expect_cli_error(fat_tree + " --window-partitions 2 --window-threads 0", "--window-threads: '0' is not from 1 to 64");
  expect_cli_error(fat_tree + " --window-partitions 2 --window-threads two",
                   "--window-threads: 'two' must be a whole number");
  expect_cli_error("params " + test::scenario_path("fat-tree.yaml") + " --window-threads 2",
                   "--window-threads: applies to 'run' only, not 'params'");
  // Firmware's guard and registries are the process's one thread's: a one-line error, no crash.
  expect_cli_error(fat_tree + " --until 100us --window-partitions 2 --window-threads 2 --set 'h*.firmware=dcqcn'",
                   "window threads: firmware runs on the simulation's one thread; run with --window-threads 1");
}

// A run on window threads says how evenly its threads' partitions weighed: the windows, their
// wall time and each thread's share of it at work (docs/parallel.md).
TEST(Cli, AWindowThreadsRunSaysEachThreadsBusyShare) {
  auto r = test::run_cli(
      "run " + test::scenario_path("fat-tree.yaml") + " --until 50us --window-partitions 4 --window-threads 2",
      "/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::size_t at = r.output.find("window threads: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
  unsigned windows = 0;
  double steps_s = -1, busy0 = -1, busy1 = -1;
  ASSERT_EQ(std::sscanf(line.c_str(), "window threads: %u windows in %lf s; busy %lf %%, %lf %% (thread 0 first)",
                        &windows, &steps_s, &busy0, &busy1),
            4)
      << line;
  EXPECT_GE(windows, 49u);  // 50 us of 1.0128 us windows, from the first wake-up on
  EXPECT_GT(steps_s, 0);
  for (double busy : {busy0, busy1}) {
    EXPECT_GT(busy, 0) << line;
    EXPECT_LE(busy, 100) << line;
  }
  // One thread: nothing to weigh.
  auto one =
      test::run_cli("run " + test::scenario_path("fat-tree.yaml") + " --until 50us --window-partitions 4", "/dev/null");
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_EQ(one.output.find("window threads: "), std::string::npos);
}

// A partitioned run's options (docs/parallel.md): a method without partitions would choose nothing.
TEST(Cli, APartitionMethodWithoutPartitionsIsAnError) {
  expect_cli_error("run " + test::scenario_path("fat-tree.yaml") + " --partition-method pod",
                   "--partition-method: 'pod' needs --partitions or --window-partitions 2 or more");
  expect_cli_error("run " + test::scenario_path("fat-tree.yaml") + " --partitions 0", "--partitions: '0' is below 1");
  expect_cli_error("params " + test::scenario_path("fat-tree.yaml") + " --partitions 2",
                   "--partitions: applies to 'run' only, not 'params'");
}
