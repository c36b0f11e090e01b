// Packet captures (issue 22): `sluice run --pcap DIR --capture PORTS` writes pcapng files that
// Debian's tshark decodes, with the repository's Lua dissectors for what Wireshark 4.0 lacks. Each
// test runs a shipped scenario through the CLI, then reads the capture back with tshark and
// checks the decoded fields against what the model counted: PFC class-enable vectors and quanta,
// CNM feedback, ECN bits and CNPs, InfiniBand FECN/BECN and credit packets.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "tests/support/harness.h"
#include "tests/support/tshark.h"

using namespace sluice;

namespace {

using test::have_tshark;
using test::tshark;

// Runs `args` with --out and --pcap into a fresh folder; returns the folder.
std::string run_with_capture(const std::string& name, const std::string& args) {
  const std::string dir = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
  std::filesystem::remove_all(dir);
  test::command_result r = test::run_cli("run " + args + " -q --out " + dir + " --pcap " + dir + "/pcap");
  EXPECT_EQ(r.status, 0) << r.output;
  return dir;
}

nlohmann::json summary_of(const std::string& dir) { return nlohmann::json::parse(test::slurp(dir + "/summary.json")); }

}  // namespace

TEST(Capture, PfcFramesDecodeWithTheirClassVectorAndQuantaAndMatchTheCounters) {
  if (!have_tshark()) GTEST_SKIP() << "tshark not installed (tools/setup.sh installs it)";
  const std::string dir = run_with_capture(
      "pfc", test::scenario_path("incast.yaml") + " --until 1ms --capture h0.port0 --capture 'sw0.port1'");
  const nlohmann::json s = summary_of(dir);
  // The senders' ports receive the switch's PAUSE frames: every one decodes as PFC (opcode
  // 0x0101) for priority 3 only, with quanta (0xFFFF XOFF, 0 XON), as the model counted them.
  const auto rows = tshark(dir + "/pcap/h0.port0.pcapng", "macc.opcode == 0x0101 && frame.p2p_dir == 1",
                           {"macc.cbfc.enbv", "macc.cbfc.pause_time.c3", "vlan.priority"});
  ASSERT_GT(rows.size(), 0u);
  EXPECT_EQ(static_cast<double>(rows.size()), test::counter(s, "h0.port0.pfc.frames_received"));
  uint64_t pauses = 0, resumes = 0;
  for (const auto& r : rows) {
    EXPECT_EQ(r[0], "0x0008") << "class-enable vector: priority 3";
    (std::stoul(r[1]) ? pauses : resumes)++;
  }
  EXPECT_EQ(static_cast<double>(pauses), test::counter(s, "h0.port0.prio3.pause_received"));
  EXPECT_EQ(static_cast<double>(resumes), test::counter(s, "h0.port0.prio3.resume_received"));
  // Data leaving h0: RoCEv2 on UDP 4791 with the flow's priority in the 802.1Q tag; the BTH's
  // destination QP is the flow id and the PSNs count up from 0.
  const auto data = tshark(dir + "/pcap/h0.port0.pcapng", "udp.dstport == 4791 && frame.p2p_dir == 0",
                           {"vlan.priority", "infiniband.bth.destqp", "infiniband.bth.psn", "frame.time_epoch"});
  ASSERT_GT(data.size(), 100u);
  EXPECT_EQ(data[0][0], "3");
  EXPECT_EQ(data[0][2], "0");
  EXPECT_EQ(data[1][2], "1");
  EXPECT_EQ(static_cast<double>(data.size()), test::counter(s, "h0.prio3.frames_sent"));
  // Two files, one per port asked for; nothing else.
  EXPECT_TRUE(std::filesystem::exists(dir + "/pcap/sw0.port1.pcapng"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir + "/pcap"), std::filesystem::directory_iterator{}),
            2);
}

TEST(Capture, QcnCnmsDecodeWithTheLuaDissector) {
  if (!have_tshark()) GTEST_SKIP() << "tshark not installed (tools/setup.sh installs it)";
  const std::string dir = run_with_capture(
      "cnm", test::scenario_path("dumbbell.yaml") + " --cc qcn --until 2ms --capture h0.port0 --capture-kinds cnm");
  const nlohmann::json s = summary_of(dir);
  const auto rows = tshark(dir + "/pcap/h0.port0.pcapng", "sluice_cnm",
                           {"sluice_cnm.version", "sluice_cnm.qfb", "sluice_cnm.cpid", "sluice_cnm.qoffset",
                            "sluice_cnm.encap_priority", "vlan.etype"});
  ASSERT_GT(rows.size(), 10u);
  EXPECT_EQ(static_cast<double>(rows.size()), test::counter(s, "h0.cnm_received"));
  for (const auto& r : rows) {
    EXPECT_EQ(r[0], "0") << "QCN's CNMs carry version 0";
    EXPECT_GE(std::stoi(r[1]), 0);
    EXPECT_LE(std::stoi(r[1]), 63);
    EXPECT_NE(r[2], "0x0000000000000000");
    EXPECT_EQ(r[4], "3") << "the sampled frame's priority";
    EXPECT_EQ(r[5], "0x22e7");
  }
  // --capture-kinds cnm: nothing else in the file.
  EXPECT_EQ(tshark(dir + "/pcap/h0.port0.pcapng", "!sluice_cnm", {"frame.number"}).size(), 0u);
}

TEST(Capture, DcqcnEcnMarksAndCnpsDecodeNatively) {
  if (!have_tshark()) GTEST_SKIP() << "tshark not installed (tools/setup.sh installs it)";
  const std::string dir =
      run_with_capture("ecn", test::scenario_path("dumbbell.yaml") +
                                  " --cc dcqcn --until 1ms --capture r0.port0 --capture-window 100us:300us");
  const nlohmann::json s = summary_of(dir);
  const std::string file = dir + "/pcap/r0.port0.pcapng";
  // CE-marked data arrives at r0 and r0 answers with CNPs (BTH opcode 0x81) back to h0.
  EXPECT_GT(tshark(file, "ip.dsfield.ecn == 3 && frame.p2p_dir == 1", {"frame.number"}).size(), 0u);
  const auto cnps = tshark(file, "infiniband.bth.opcode == 0x81 && frame.p2p_dir == 0",
                           {"ip.dst", "infiniband.bth.destqp", "frame.time_epoch"});
  ASSERT_GT(cnps.size(), 0u);
  EXPECT_LE(static_cast<double>(cnps.size()), test::counter(s, "r0.cnp_sent"));
  for (const auto& r : cnps) {
    EXPECT_EQ(r[0], "10.0.0.2") << "to h0 (node 2: the switches are nodes 0 and 1)";
    const double t = std::stod(r[2]);
    EXPECT_GE(t, 100e-6);  // --capture-window 100us:300us (DCQCN marks there on this dumbbell)
    EXPECT_LT(t, 300e-6);
  }
}

TEST(Capture, InfinibandErfRecordsCarryFecnBecnAndCredits) {
  if (!have_tshark()) GTEST_SKIP() << "tshark not installed (tools/setup.sh installs it)";
  const std::string dir = run_with_capture(
      "ib", test::scenario_path("ib-incast.yaml") + " --cc ib-cca --until 1ms --capture h0.port0 --capture r0.port0");
  const nlohmann::json s = summary_of(dir);
  // Credit packets (ERF InfiniBand link records) decode with the Lua dissector: VL and FCCL.
  const auto credits = tshark(dir + "/pcap/h0.port0.pcapng", "sluice_ib_link && frame.p2p_dir == 1",
                              {"sluice_ib_link.vl", "sluice_ib_link.fccl", "sluice_ib_link.op"});
  ASSERT_GT(credits.size(), 0u);
  EXPECT_EQ(static_cast<double>(credits.size()), test::counter(s, "h0.port0.credit.packets_received"));
  for (const auto& r : credits) {
    EXPECT_FALSE(r[1].empty()) << "FCCL decoded";
    EXPECT_LT(std::stoi(r[0]), 16) << "a VL";
  }
  // FECN-marked data reaches r0, BECNs (in CNPs, BTH opcode 0x80) come back to h0.
  const auto fecn = tshark(dir + "/pcap/r0.port0.pcapng", "sluice.fecn == 1 && frame.p2p_dir == 1",
                           {"infiniband.lrh.dlid", "infiniband.lrh.slid"});
  ASSERT_GT(fecn.size(), 0u);
  const auto becn = tshark(dir + "/pcap/h0.port0.pcapng", "sluice.becn == 1 && frame.p2p_dir == 1",
                           {"infiniband.bth.opcode", "infiniband.lrh.dlid"});
  ASSERT_GT(becn.size(), 0u);
  EXPECT_EQ(becn[0][0], "128");  // 0x80, the IB CNP
  EXPECT_EQ(becn[0][1], "2");    // h0's LID: its node id + 1 (node 1: the switch is node 0)
  EXPECT_LE(static_cast<double>(becn.size()), test::counter(s, "h0.cnp_received"));
}

TEST(Capture, BadCaptureOptionsAreOneLineErrors) {
  const std::string incast = test::scenario_path("incast.yaml") + " --until 10us";
  test::expect_cli_error("run " + incast + " --pcap /tmp/x", "--pcap: needs --capture");
  test::expect_cli_error("run " + incast + " --capture sw0.port1", "--capture: needs --pcap");
  test::expect_cli_error("run " + incast + " --pcap /tmp/x --capture nope.port9",
                         "--capture: 'nope.port9' matches no port");
  test::expect_cli_error("run " + incast + " --pcap /tmp/x --capture h0.port0 --capture-kinds data,pause",
                         "--capture-kinds: 'pause' is not a frame kind");
  test::expect_cli_error("run " + incast + " --pcap /tmp/x --capture h0.port0 --capture-window 2ms:1ms",
                         "--capture-window: '2ms:1ms' ends before it starts");
  test::expect_cli_error("run " + incast + " --pcap /tmp/x --capture h0.port0 --capture-window 1ms",
                         "--capture-window: '1ms' must look like FROM:TO");
  test::expect_cli_error("params " + test::scenario_path("incast.yaml") + " --pcap /tmp/x",
                         "--pcap: applies to 'run' only");
}
