// Hostile input through the command line: a YAML alias bomb, a 10 MB file, deep nesting, binary
// bytes, hostile CDF files and outputs that cannot be written (a full device, a full disk, a
// folder nobody may write). Each ends in one line "sluice: error: ..." naming the key, value or
// path, within a bound well below the tests' timeout; none crashes or hangs. Hostile values of
// every type are in tests/unit/hostile_values_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>

#include "tests/support/harness.h"

using namespace sluice;
using test::expect_cli_error;
using test::write_temp;

namespace {

// Every run here must end within this bound (the sanitizer build included).
const std::string bounded = "timeout 60";

const char* good = R"(
platform: {kind: incast, senders: 2}
traffic: [{kind: constant, src: "h*", dst: r0, rate: 10Gbps, priority: 3}]
run: {until: 20us}
)";

// "Billion laughs": nine levels of ten aliases each name 10^9 scalars if expanded.
std::string alias_bomb() {
  std::string y = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int level = 1; level <= 9; ++level) {
    const std::string prev = "*l" + std::to_string(level - 1);
    y += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) y += (i ? ", " : "") + prev;
    y += "]\n";
  }
  return y;
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/hostile-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST(HostileInput, YamlAliasBombIsNeverExpanded) {
  const std::string bomb = alias_bomb();
  // Where a name list, a value, a parameter value and a platform are read.
  expect_cli_error(
      "run " + write_temp("bomb1.yaml", bomb + "platform: {kind: incast, senders: 2}\n"
                                               "traffic: [{kind: constant, src: *l9, dst: r0, rate: 1Gbps}]\n"),
      "traffic[0].src: expected node names", bounded);
  expect_cli_error("run " + write_temp("bomb2.yaml", bomb + "platform: {kind: incast, senders: *l9}\n"),
                   "platform.senders", bounded);
  expect_cli_error("run " + write_temp("bomb3.yaml", bomb + good + "params: {\"*.mtu\": *l9}\n"),
                   "params.*.mtu: expected a value", bounded);
  expect_cli_error("run " + write_temp("bomb4.yaml", bomb + "platform: *l9\n"), "platform: expected a mapping",
                   bounded);
  expect_cli_error("run " + write_temp("bomb5.yaml", bomb + good), "l0: unknown key", bounded);
}

TEST(HostileInput, TenMegabyteFilesLoadOrFailQuickly) {
  // 10 MB of comments around a valid scenario: it runs.
  const std::string comments(10 << 20, '#');
  const auto start = std::chrono::steady_clock::now();
  auto r = test::run_cli_after(bounded, "run " + write_temp("big-comment.yaml", comments + "\n" + good) + " -q", "&1");
  EXPECT_EQ(r.status, 0) << r.output;
  // 10 MB of one description: it is text, so it is kept (and must not slow the run).
  std::string long_text = std::string(good) + "description: \"" + std::string(10 << 20, 'd') + "\"\n";
  r = test::run_cli_after(bounded, "run " + write_temp("big-text.yaml", long_text) + " -q", "&1");
  EXPECT_EQ(r.status, 0) << r.output.substr(0, 300);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60);
  // 10 MB of parameter overrides (400 000 patterns): each must match something.
  std::string params = std::string(good) + "params:\n";
  for (int i = 0; params.size() < (10u << 20); ++i)
    params += "  \"sw0.port" + std::to_string(i) + ".pfc.xoff\": 1KiB\n";
  expect_cli_error("run " + write_temp("big-params.yaml", params), "params: sw0.port3.pfc.xoff: no parameter matches",
                   bounded);
}

TEST(HostileInput, DeepNestingIsAnErrorNotAStackOverflow) {
  const int deep = 100000;
  expect_cli_error("run " + write_temp("deep-seq.yaml", "platform: " + std::string(deep, '[') + std::string(deep, ']')),
                   "nested more levels deep than the parser allows", bounded);
  std::string maps = "platform: ";
  for (int i = 0; i < deep; ++i) maps += "{a: ";
  expect_cli_error("run " + write_temp("deep-map.yaml", maps + "1" + std::string(deep, '}')),
                   "nested more levels deep than the parser allows", bounded);
  // Below the parser's depth limit: the loader names where the shape is wrong.
  const int shallow = 200;
  expect_cli_error("run " + write_temp("nested.yaml", "platform: {kind: incast, senders: 2}\ntraffic: " +
                                                          std::string(shallow, '[') + std::string(shallow, ']')),
                   "traffic[0]: expected a mapping", bounded);
}

TEST(HostileInput, BinaryInputIsRejectedAsNotText) {
  std::mt19937 rng(17);
  std::string noise(64 << 10, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  const std::string path = write_temp("noise.yaml", noise);
  expect_cli_error("run " + path, path + ":", bounded);
  expect_cli_error("run " + path, "is not text", bounded);
  // A NUL inside an otherwise good file: its line and column.
  std::string nul = good;
  nul.insert(nul.find("incast"), 1, '\0');
  expect_cli_error("run " + write_temp("nul.yaml", nul), "nul.yaml:2:", bounded);
  // UTF-16 (a BOM and NULs), and the ELF header of the binary itself.
  expect_cli_error("run " + write_temp("utf16.yaml", std::string("\xFF\xFEp\0l\0a\0t\0", 10)), "is not text", bounded);
  expect_cli_error("run /bin/true", "'/bin/true' is not text", bounded);
}

TEST(HostileInput, InputsTheFuzzerFoundStayErrors) {
  // yaml-cpp 0.7's LoadAll loops for ever on a stray ',' (jbeder/yaml-cpp#1040): fuzz_scenario
  // found ",:A" in its first 30 s. Also as the second document, after a good first one.
  for (const char* text : {",:A", ",", "\"x\",", " ,: A", ",a:"})
    expect_cli_error("run " + write_temp("comma.yaml", text), "comma.yaml:1:", bounded);
  expect_cli_error("run " + write_temp("comma2.yaml", std::string(good) + "---\n,\n"), "more than one YAML document",
                   bounded);
}

TEST(HostileInput, HostileFlowSizeTablesAreBounded) {
  const std::string workload =
      "platform: {kind: incast, senders: 2}\n"
      "traffic: [{kind: workload, src: h0, dst: r0, load: 0.5, stop: 1ms, cdf: ";
  expect_cli_error("run " + write_temp("cdf-dev.yaml", workload + "/dev/zero}]\n"), "'/dev/zero' is not a regular file",
                   bounded);
  std::mt19937 rng(3);
  std::string noise(1 << 20, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  const std::string cdf = write_temp("noise.cdf", noise);
  expect_cli_error("run " + write_temp("cdf-noise.yaml", workload + cdf + "}]\n"), "traffic[0].cdf", bounded);
  const std::string nan_cdf = write_temp("nan.cdf", "1000 nan\n2000 100\n");
  expect_cli_error("run " + write_temp("cdf-nan.yaml", workload + nan_cdf + "}]\n"), "line 1", bounded);
}

TEST(HostileInput, OutputsThatCannotBeWrittenAreNamed) {
  const std::string s = write_temp("out.yaml", good);
  // A device, not a folder; a folder under /proc, which not even root may create.
  expect_cli_error("run " + s + " --out /dev/full", "--out: cannot create '/dev/full'", bounded);
  expect_cli_error("run " + s + " --out /proc/self/sluice-out", "--out: cannot create '/proc/self/sluice-out'",
                   bounded);
  // A full device behind the summary's temporary file, and behind one series.
  std::string dir = fresh_dir("full-summary");
  std::filesystem::create_symlink("/dev/full", dir + "/summary.json.tmp");
  expect_cli_error("run " + s + " --out " + dir, "--out: cannot write '" + dir + "/summary.json'", bounded);
  EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json"));
  dir = fresh_dir("full-series");
  std::filesystem::create_symlink("/dev/full", dir + "/link_throughput.csv");
  expect_cli_error("run " + s + " --out " + dir, "--out: cannot write '" + dir + "/link_throughput.csv'", bounded);
  // A full disk: files may not grow beyond 4 KiB (8 blocks of 512 B in sh; SIGXFSZ ignored, so the
  // write fails instead of killing the process).
  dir = fresh_dir("full-disk");
  expect_cli_error("run " + s + " --out " + dir, "--out: cannot write '" + dir,
                   "trap '' XFSZ; ulimit -f 8; " + bounded);
}

TEST(HostileInput, CapturesWaveformsAndFrameTracesThatCannotBeWrittenAreNamed) {
  const std::string s = write_temp("observe.yaml", good);
  const std::string full_disk = "trap '' XFSZ; ulimit -f 8; " + bounded;  // files stop at 4 KiB
  // --pcap DIR: a folder that cannot be made, a port's file on a full device, a full disk.
  expect_cli_error("run " + s + " --pcap /proc/self/sluice-pcap --capture 'h*'",
                   "--pcap: cannot create '/proc/self/sluice-pcap'", bounded);
  std::string dir = fresh_dir("full-pcap");
  std::filesystem::create_symlink("/dev/full", dir + "/h0.port0.pcapng");
  expect_cli_error("run " + s + " --pcap " + dir + " --capture h0.port0",
                   "--pcap: cannot write '" + dir + "/h0.port0.pcapng': No space left on device", bounded);
  dir = fresh_dir("disk-pcap");
  expect_cli_error("run " + s + " --until 200us --pcap " + dir + " --capture 'h*'", "--pcap: cannot write '" + dir,
                   full_disk);
  // --vcd FILE: named before the run when it cannot be made; a full device; a full disk.
  expect_cli_error("run " + s + " --vcd /proc/self/sluice.vcd --trace '*.paused'",
                   "--vcd: cannot write '/proc/self/sluice.vcd'", bounded);
  expect_cli_error("run " + s + " --vcd /dev/full --trace '*.queue_bytes'", "--vcd: cannot write '/dev/full'", bounded);
  dir = fresh_dir("disk-vcd");
  expect_cli_error("run " + s + " --until 200us --vcd " + dir + "/run.vcd --trace '*.queue_bytes'",
                   "--vcd: cannot write '" + dir + "/run.vcd'", full_disk);
  // --trace-frames with --out: frame_trace.csv on a full device; a full disk (the summary, written
  // first, is the file named then).
  dir = fresh_dir("full-trace");
  std::filesystem::create_symlink("/dev/full", dir + "/frame_trace.csv");
  expect_cli_error("run " + s + " --out " + dir + " --trace-frames kind=data",
                   "--out: cannot write '" + dir + "/frame_trace.csv'", bounded);
  dir = fresh_dir("disk-trace");
  expect_cli_error("run " + s + " --until 200us --out " + dir + " --trace-frames kind=data",
                   "--out: cannot write '" + dir, full_disk);
}

TEST(HostileInput, AReadOnlyOutputFolderIsNamedBeforeTheRun) {
  if (geteuid() == 0) GTEST_SKIP() << "root may write any folder; /proc above covers a folder root cannot write";
  const std::string dir = fresh_dir("read-only");
  std::filesystem::permissions(dir, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  expect_cli_error("run " + write_temp("ro.yaml", good) + " --until 10s --out " + dir, "is not writable", bounded);
}
