// Waveforms (issue 22): --vcd FILE --trace SIGNALS writes a VCD of chosen signals in
// picoseconds. The test reads it back and checks it against the CSV series of the same run: the
// queue depth at every sample time, and each period's paused share.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "tests/support/harness.h"
#include "tests/support/tshark.h"

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

// Per switch queue of priority 3 with a `marks` signal: its changes and its ports[] row's ecn_marked.
struct queue_marks {
  std::string name;
  const std::vector<std::pair<uint64_t, uint64_t>>* changes;
  uint64_t last, ecn_marked;
};
std::vector<queue_marks> marks_of(const vcd_file& vcd, const nlohmann::json& summary) {
  std::vector<queue_marks> out;
  for (const auto& p : summary["ports"]) {
    const std::string name =
        p["node"].get<std::string>() + ".port" + std::to_string(p["port"].get<int>()) + ".prio3.marks";
    if (p["priority"] != 3 || !vcd.changes.count(name)) continue;
    const auto& list = vcd.changes.at(name);
    out.push_back({name, &list, list.empty() ? 0 : list.back().second, p["ecn_marked"].get<uint64_t>()});
  }
  return out;
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

TEST(Waveform, TcdStatesAgreeWithCpStateCsvAndMarksWithThePortsCounts) {
  const std::string dir = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-vcdcp";
  const test::command_result r =
      test::run_cli("run " + test::scenario_path("tcd-victim.yaml") + " --until 2500us -q --out " + dir + " --vcd " +
                    dir + "/run.vcd --trace '*.prio3.cp_state' --trace 'sw*.prio3.marks'");
  ASSERT_EQ(r.status, 0) << r.output;
  const vcd_file vcd = parse_vcd(test::slurp(dir + "/run.vcd"));
  // The detector's state at every sample of cp_state.csv, on every queue that has one.
  const auto [columns, rows] = read_csv(dir + "/cp_state.csv");
  ASSERT_GT(columns.size(), 1u);
  std::size_t congested = 0, undetermined = 0;
  for (std::size_t c = 1; c < columns.size(); ++c) {
    const std::string name = columns[c].substr(0, columns[c].rfind(".p")) + ".prio3.cp_state";
    ASSERT_TRUE(vcd.changes.count(name)) << name;
    for (const auto& row : rows) {
      const auto t = static_cast<uint64_t>(row[0] * 1e6 + 0.5);
      EXPECT_TRUE(row[c] == static_cast<double>(vcd.at(name, t, true)) ||
                  row[c] == static_cast<double>(vcd.at(name, t, false)))
          << name << " at " << row[0] << " us: CSV " << row[c] << ", VCD " << vcd.at(name, t, true);
      congested += row[c] == 2;
      undetermined += row[c] == 1;
    }
  }
  EXPECT_GT(congested, 0u) << "sw1's port towards r1";
  EXPECT_GT(undetermined, 0u) << "the victim port";
  // The marks: each queue's count at the end is what its ports[] row says it marked (TCD on CEE
  // marks CE in congestion, UE when undetermined: the signal counts both).
  const nlohmann::json s = nlohmann::json::parse(test::slurp(dir + "/summary.json"));
  std::size_t marked_queues = 0;
  for (const queue_marks& q : marks_of(vcd, s)) {
    EXPECT_GE(q.last, q.ecn_marked) << q.name;
    marked_queues += q.last > 0;
  }
  EXPECT_GT(marked_queues, 0u);
}

TEST(Waveform, EcnMarksCountTheSameAsThePortsRows) {
  const std::string dir = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-vcdmarks";
  const test::command_result r =
      test::run_cli("run " + test::scenario_path("dumbbell-dcqcn.yaml") + " --until 2ms -q --out " + dir + " --vcd " +
                    dir + "/run.vcd --trace 'sw*.prio3.marks'");
  ASSERT_EQ(r.status, 0) << r.output;
  const vcd_file vcd = parse_vcd(test::slurp(dir + "/run.vcd"));
  const nlohmann::json s = nlohmann::json::parse(test::slurp(dir + "/summary.json"));
  uint64_t total = 0;
  for (const queue_marks& q : marks_of(vcd, s)) {
    EXPECT_EQ(q.last, q.ecn_marked) << q.name;
    // A count: up with each mark (two in one picosecond show as one step), never down.
    for (std::size_t i = 1; i < q.changes->size(); ++i) EXPECT_GT((*q.changes)[i].second, (*q.changes)[i - 1].second);
    total += q.last;
  }
  EXPECT_GT(total, 0u);
}

TEST(Waveform, InfiniBandCreditsFallBelowAFrameWheneverTheCsvSaysTheVlWasStarved) {
  const std::string dir = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-vcdcredit";
  const test::command_result r =
      test::run_cli("run " + test::scenario_path("ib-incast.yaml") + " --until 300us -q --out " + dir + " --vcd " +
                    dir + "/run.vcd --trace 'h0.port0.vl3.credits,h0.port0.vl3.credit_starved'");
  ASSERT_EQ(r.status, 0) << r.output;
  const vcd_file vcd = parse_vcd(test::slurp(dir + "/run.vcd"));
  const std::string credits = "h0.port0.vl3.credits", starved = "h0.port0.vl3.credit_starved";
  const auto& changes = vcd.changes.at(credits);
  ASSERT_GT(changes.size(), 100u);
  // 1000-byte payloads: a frame of about 1 KB needs 17 blocks of 64 bytes.
  constexpr uint64_t frame_blocks = 17;
  uint64_t most = 0;
  for (const auto& [t, v] : changes) most = std::max(most, v);
  EXPECT_LE(most, 2048u) << "a credit limit is at most 2048 blocks ahead";
  EXPECT_GE(most, frame_blocks);
  // Each wait for credit begins with less credit than a frame needs.
  std::size_t waits = 0;
  for (const auto& [t, v] : vcd.changes.at(starved))
    if (v) {
      EXPECT_LT(vcd.at(credits, t, true), frame_blocks) << "starved at " << t << " ps";
      ++waits;
    }
  EXPECT_GT(waits, 0u);
  // The CSV's starved periods: in each, the credit was below a frame at some moment.
  const auto [columns, rows] = read_csv(dir + "/credit_blocked_fraction.csv");
  const std::size_t c = column(columns, "h0.port0.p3");
  double from_us = 0;
  for (const auto& row : rows) {
    const auto from = static_cast<uint64_t>(from_us * 1e6 + 0.5), to = static_cast<uint64_t>(row[0] * 1e6 + 0.5);
    uint64_t least = vcd.at(credits, from, true);
    for (const auto& [t, v] : changes)
      if (t > from && t <= to) least = std::min(least, v);
    if (row[c] > 0) {
      EXPECT_LT(least, frame_blocks) << "period ending " << row[0] << " us";
    }
    from_us = row[0];
  }
}

// QCN's Fb at each sample (<port>.prio<k>.fb, signed bytes) against the CNMs of the same run as
// tshark decodes them: every CNM sw0 sent carries the quantized |Fb| and the queue offset and growth
// (64-byte units, truncated) of a sample the VCD shows, at most 50 us before the CNM left.
TEST(Waveform, QcnFbSamplesAreTheOnesTheCapturedCnmsCarry) {
  if (!test::have_tshark()) GTEST_SKIP() << "tshark not installed (tools/setup.sh installs it)";
  const std::string dir = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-vcdfb";
  const test::command_result r = test::run_cli(
      "run " + test::scenario_path("dumbbell.yaml") + " --cc qcn --until 3ms -q --out " + dir + " --vcd " + dir +
      "/run.vcd --trace 'sw*.prio3.fb' --pcap " + dir + "/pcap --capture 'sw0.port*' --capture-kinds cnm");
  ASSERT_EQ(r.status, 0) << r.output;
  const vcd_file vcd = parse_vcd(test::slurp(dir + "/run.vcd"));
  ASSERT_EQ(vcd.changes.count("sw0.port4.prio3.fb"), 1u) << "the bottleneck's congestion point, towards sw1";
  const auto& fb = vcd.changes.at("sw0.port4.prio3.fb");
  const auto signed_fb = [](uint64_t v) { return static_cast<int64_t>(v); };
  std::size_t negative = 0;
  for (const auto& [t, v] : fb) negative += signed_fb(v) < 0;
  ASSERT_GT(negative, 20u);
  // The default CP: Qeq 26 KiB, w 2, |Fb| x 63 / ((1 + 2w) Qeq) truncated.
  constexpr double qeq = 26 * 1024, w = 2;
  const auto quantized = [&](int64_t v) {
    return std::min<int64_t>(63, static_cast<int64_t>(-v * 63 / ((1 + 2 * w) * qeq)));
  };
  std::size_t cnms = 0;
  for (int port = 0; port < 4; ++port) {  // sw0's ports towards h0..h3, where the CNMs leave
    const auto rows =
        test::tshark(dir + "/pcap/sw0.port" + std::to_string(port) + ".pcapng", "sluice_cnm && frame.p2p_dir == 0",
                     {"frame.time_epoch", "sluice_cnm.qfb", "sluice_cnm.qoffset", "sluice_cnm.qdelta"});
    for (const auto& row : rows) {
      ++cnms;
      // The capture's clock counts nanoseconds: a CNM sent in the picosecond of its sample may show
      // up to 999 ps before it.
      const auto sent_ps = static_cast<uint64_t>(std::llround(std::stod(row[0]) * 1e12)) + 999;
      const int64_t qfb = std::stoll(row[1]), from_pdu = -64 * (std::stoll(row[2]) + 2 * std::stoll(row[3]));
      bool found = false;
      for (const auto& [t, v] : fb)
        found |= t <= sent_ps && t + 50'000'000 > sent_ps && quantized(signed_fb(v)) == qfb &&
                 std::abs(signed_fb(v) - from_pdu) < 64 * (1 + w);
      EXPECT_TRUE(found) << "CNM at " << sent_ps << " ps, qFb " << qfb << ", Fb from the PDU " << from_pdu;
    }
  }
  const nlohmann::json s = nlohmann::json::parse(test::slurp(dir + "/summary.json"));
  EXPECT_EQ(static_cast<double>(cnms), test::counter(s, "sw0.port4.prio3.qcn.cnm_sent"));
  EXPECT_GT(cnms, 20u);
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
