// Waveforms (issue 22): --vcd FILE --trace SIGNALS writes a VCD of chosen signals in
// picoseconds. The test reads it back and checks it against the CSV series of the same run: the
// queue depth at every sample time, and each period's paused share.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "tests/support/harness.h"

using namespace sluice;

namespace {

// A parsed VCD: each signal's full name (scopes joined by '.') and its changes (time, value).
struct vcd_file {
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> changes;
  std::string timescale;
  // The value at `t` after (`inclusive`) or before the changes at t.
  uint64_t at(const std::string& name, uint64_t t, bool inclusive) const {
    uint64_t v = 0;
    for (const auto& [time, value] : changes.at(name)) {
      if (time > t || (!inclusive && time == t)) break;
      v = value;
    }
    return v;
  }
};

vcd_file parse_vcd(const std::string& text) {
  vcd_file f;
  std::map<std::string, std::string> code_to_name;
  std::vector<std::string> scope;
  std::istringstream in(text);
  std::string word;
  uint64_t now = 0;
  while (in >> word) {
    if (word == "$timescale") {
      in >> f.timescale;
    } else if (word == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope.push_back(name);
    } else if (word == "$upscope") {
      scope.pop_back();
    } else if (word == "$var") {
      std::string type, width, code, leaf;
      in >> type >> width >> code >> leaf;
      std::string full;
      for (const std::string& s : scope) full += s + ".";
      code_to_name[code] = full + leaf;
      f.changes[full + leaf];
    } else if (word[0] == '#') {
      now = std::stoull(word.substr(1));
    } else if (word[0] == 'b') {
      std::string code;
      in >> code;
      f.changes[code_to_name.at(code)].push_back({now, std::stoull(word.substr(1), nullptr, 2)});
    } else if ((word[0] == '0' || word[0] == '1') && word.size() > 1 && code_to_name.count(word.substr(1))) {
      f.changes[code_to_name.at(word.substr(1))].push_back({now, static_cast<uint64_t>(word[0] - '0')});
    }
  }
  return f;
}

// A CSV series: the header's columns and the rows (time_us first).
std::pair<std::vector<std::string>, std::vector<std::vector<double>>> read_csv(const std::string& path) {
  std::istringstream in(test::slurp(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> columns;
  std::istringstream h(line);
  for (std::string c; std::getline(h, c, ',');) columns.push_back(c);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream r(line);
    for (std::string c; std::getline(r, c, ',');) row.push_back(std::stod(c));
    rows.push_back(row);
  }
  return {columns, rows};
}

std::size_t column(const std::vector<std::string>& columns, const std::string& name) {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  ADD_FAILURE() << name << " not in the CSV";
  return 0;
}

}  // namespace

TEST(Waveform, TheVcdAgreesWithTheCsvSeriesOfTheSameRun) {
  const std::string dir = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-vcd";
  const test::command_result r = test::run_cli(
      "run " + test::scenario_path("incast.yaml") +
      " --until 1ms --sample-period 10us -q --set sw0.mmu.threshold=static --out " + dir + " --vcd " + dir +
      "/run.vcd --trace 'sw0.port16.prio3.queue_bytes,sw0.queued_bytes' --trace 'h0.port0.prio3.paused'");
  ASSERT_EQ(r.status, 0) << r.output;
  const vcd_file vcd = parse_vcd(test::slurp(dir + "/run.vcd"));
  EXPECT_EQ(vcd.timescale, "1ps");
  ASSERT_EQ(vcd.changes.size(), 3u);
  const std::string queue = "sw0.port16.prio3.queue_bytes", paused = "h0.port0.prio3.paused";
  ASSERT_GT(vcd.changes.at(queue).size(), 100u);
  ASSERT_GT(vcd.changes.at(paused).size(), 2u);
  // Queue depth: at each sample time the CSV holds the VCD's value (the sample is taken after,
  // or before, the changes of that very picosecond).
  const auto [qcols, qrows] = read_csv(dir + "/queue_depth.csv");
  const std::size_t q = column(qcols, "sw0.port16.p3");
  std::size_t nonzero = 0;
  for (const auto& row : qrows) {
    const auto t = static_cast<uint64_t>(row[0] * 1e6 + 0.5);
    const double csv = row[q];
    nonzero += csv > 0;
    EXPECT_TRUE(csv == static_cast<double>(vcd.at(queue, t, true)) ||
                csv == static_cast<double>(vcd.at(queue, t, false)))
        << "at " << row[0] << " us: CSV " << csv << ", VCD " << vcd.at(queue, t, true);
  }
  EXPECT_GT(nonzero, 10u);
  // The switch's sum is at least the one queue's depth, always.
  for (const auto& [t, v] : vcd.changes.at("sw0.queued_bytes")) EXPECT_GE(v, vcd.at(queue, t, true));
  // Pause: each period's share of time paused, integrated from the VCD, is the CSV's.
  const auto [pcols, prows] = read_csv(dir + "/paused_fraction.csv");
  const std::size_t p = column(pcols, "h0.port0.p3");
  double previous_us = 0, paused_share_total = 0;
  for (const auto& row : prows) {
    const auto from = static_cast<uint64_t>(previous_us * 1e6 + 0.5), to = static_cast<uint64_t>(row[0] * 1e6 + 0.5);
    uint64_t held = 0, t = from, state = vcd.at(paused, from, true);
    for (const auto& [ct, cv] : vcd.changes.at(paused)) {
      if (ct <= from || ct > to) continue;
      if (state) held += ct - t;
      t = ct;
      state = cv;
    }
    if (state) held += to - t;
    const double share = static_cast<double>(held) / static_cast<double>(to - from);
    EXPECT_NEAR(share, row[p], 1e-5) << "period ending " << row[0] << " us";
    paused_share_total += share;
    previous_us = row[0];
  }
  EXPECT_GT(paused_share_total, 0.5);
}

TEST(Waveform, TheWindowAndBadOptions) {
  const std::string dir = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-vcdw";
  const test::command_result r =
      test::run_cli("run " + test::scenario_path("dumbbell-dcqcn.yaml") + " --until 2ms -q --vcd " + dir +
                    ".vcd --trace 'h*.flow*.rate' --trace-window 1ms:1500us");
  ASSERT_EQ(r.status, 0) << r.output;
  const vcd_file vcd = parse_vcd(test::slurp(dir + ".vcd"));
  ASSERT_EQ(vcd.changes.size(), 4u);  // one rate per flow (h0..h3)
  std::size_t changes = 0;
  for (const auto& [name, list] : vcd.changes)
    for (const auto& [t, v] : list) {
      EXPECT_GE(t, 1'000'000'000u) << name;
      EXPECT_LT(t, 1'500'000'000u) << name;
      ++changes;
    }
  EXPECT_GT(changes, 8u);  // the dump at 1 ms, then h0's and h1's DCQCN rate changes
  const std::string incast = "run " + test::scenario_path("incast.yaml") + " --until 10us";
  test::expect_cli_error(incast + " --vcd /tmp/x.vcd", "--vcd: needs --trace");
  test::expect_cli_error(incast + " --trace '*.paused'", "--trace: needs --vcd");
  test::expect_cli_error(incast + " --vcd /tmp/x.vcd --trace 'sw9.*'", "--trace: 'sw9.*' matches no signal");
  test::expect_cli_error(incast + " --vcd /tmp/x.vcd --trace '*.paused' --trace-window 5us",
                         "--trace-window: '5us' must look like FROM:TO");
}
