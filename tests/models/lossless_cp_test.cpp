// The lossless-aware congestion points chosen by name, driven in simulated time with a fake
// flow-control gate: what they read of it (the end of the latest OFF period, the ON-OFF loop)
// and how they mark departing frames. PCN's NP-ECN (docs/models/pcn.md) and TCD (tcd.md).
#include <gtest/gtest.h>

#include "models/cc/congestion_point.h"
#include "models/cc/tcd/tcd_cp.h"
#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::sc_time;
using sc_core::SC_US;
using test::ns_ps;

namespace {
// A gate whose OFF periods the test sets; its loop is pcn-basic's (3000 B, 10.0128 us, 40 Gb/s).
struct fake_gate : flow_control_if {
  uint64_t off_end = 0;
  int classes() const override { return 8; }
  bool may_send(int, uint32_t, uint64_t) const override { return true; }
  uint64_t blocked_until_ps(int, uint64_t now) const override { return now; }
  tlm::tlm_generic_payload* take_control_frame(uint64_t) override { return nullptr; }
  void on_control_frame(tlm::tlm_generic_payload&) override {}
  void on_admit(int, uint32_t, bool) override {}
  void on_release(int, uint32_t, bool) override {}
  uint64_t off_end_ps(int, uint64_t) const override { return off_end; }
  on_off_loop on_off(int) const override { return {3000, 10'012'800, 40e9}; }
  link_layer fabric = link_layer::cee;
  link_layer layer() const override { return fabric; }
};
struct port_object : sc_core::sc_module {
  explicit port_object(sc_core::sc_module_name n) : sc_module(n) {}
};
struct no_injector : frame_injector_if {
  void inject(tlm::tlm_generic_payload*) override {}
  uint32_t node_id() const override { return 0; }
};
packet_header data_frame(uint64_t ready_ps) {
  packet_header h;
  h.kind = frame_kind::data;
  h.priority = 3;
  h.size = 1062;
  h.ready_ps = ready_ps;
  return h;
}
// A tcd congestion point on port `name` whose departures (queue left behind) are recorded.
struct tcd_bench {
  port_object port;
  fake_gate gate;
  no_injector inj;
  std::unique_ptr<congestion_point_if> cp;
  std::vector<int> ecn, state, flags;
  explicit tcd_bench(const char* name)
      : port(name), cp(cp_policies::instance().make(std::string(name) + ".prio3.cp", "tcd", port, 3, inj)) {}
  // q: the queue left behind, all of it past the pipeline (pipeline: frames still in it besides).
  void leave(uint64_t q, uint64_t pipeline = 0) {
    packet_header h = data_frame(now_ps());
    cp->on_dequeue(h, queue_view{2, 3, q, static_cast<uint32_t>(q / 1062), 0, &gate, q + pipeline});
    ecn.push_back(h.ecn);
    state.push_back(cp->state());
    flags.push_back(h.flags);
  }
  // The departures of TcdReadsItsLoopFromTheGateAndMarksUeThenCe (explained there).
  void ue_then_ce() {
    test::step_driver d("driver");
    d.at(sc_time(1, SC_US), [&] { leave(1000); });  // never paused, queue at low: non-congestion
    d.at(sc_time(6, SC_US), [&] {
      gate.off_end = ns_ps(5000);
      leave(8000);
    });
    d.at(sc_time(127, SC_US), [&] { leave(8000); });  // Ton 122 us < 122.1408 us: still undetermined
    d.at(sc_time(128, SC_US), [&] { leave(8000); });  // Ton 123 us: continuous ON, no check due yet
    d.at(sc_time(250, SC_US), [&] { leave(8000); });  // trend check: congestion
    start(sc_time(260, SC_US));
  }
};
}  // namespace

TEST(LosslessCp, PcnMarksFramesQueuedBehindAnotherAndSparesThoseWaitingAtAResume) {
  port_object port("pcn_port");
  fake_gate gate;
  no_injector inj;
  auto cp = cp_policies::instance().make("pcn_port.prio3.cp", "pcn", port, 3, inj);
  ASSERT_TRUE(cp);
  std::vector<int> ecn;
  auto leave = [&](double ready_ns, uint32_t left_behind) {
    packet_header h = data_frame(ns_ps(ready_ns));
    cp->on_dequeue(h, queue_view{2, 3, left_behind * 1062ull, left_behind, 0, &gate});
    ecn.push_back(h.ecn);
  };
  test::step_driver d("driver");
  d.at(sc_time(1, SC_US), [&] { leave(1000, 0); });    // A: nothing ahead
  d.at(sc_time(1.2, SC_US), [&] { leave(1100, 0); });  // B: ready while A was on the wire only: unmarked
  d.at(sc_time(1.4, SC_US), [&] { leave(1150, 0); });  // C: ready at 1.15 us, B left at 1.2: B was queued: CE
  d.at(sc_time(2, SC_US), [&] {                        // paused until 2 us with D, E, F waiting: PN = 3
    gate.off_end = ns_ps(2000);
    leave(1500, 2);  // D
  });
  d.at(sc_time(2.2, SC_US), [&] { leave(1600, 2); });  // E (a frame G arrived meanwhile)
  d.at(sc_time(2.4, SC_US), [&] { leave(1700, 1); });  // F: the last of PN
  d.at(sc_time(2.6, SC_US), [&] { leave(2300, 0); });  // G: ready at 2.3 us, F left at 2.4: CE
  start(sc_time(3, SC_US));
  EXPECT_EQ(ecn, (std::vector<int>{0, 0, 3, 0, 0, 0, 3}));
}

// max(Ton) derived from the gate's loop: (2 x 3000 x 8 + 10.0128e-6 x 40e9) / (2 x 0.05 x 40e9)
// + 10.0128 us = 122.1408 us (TcdMaxTon.WorkedExampleOfTheReference), and the trend period T is
// the same. An OFF period ends at 5 us: undetermined (UE) while Ton < 122.1408 us, i.e. before
// 127.1408 us. The departure at 127 us is the first a period after the start: the trend check
// records 8000 B. At 128 us the port is continuously ON but no period has passed since: no
// verdict, still undetermined (UE). At 250 us (a period after 127 us) the queue is 8000 B > high
// and not below its level a period earlier: congestion (CE).
TEST(LosslessCp, TcdReadsItsLoopFromTheGateAndMarksUeThenCe) {
  tcd_bench b("tcd_port");
  ASSERT_TRUE(b.cp);
  b.ue_then_ce();
  EXPECT_EQ(b.state, (std::vector<int>{0, 1, 1, 1, 2}));
  EXPECT_EQ(b.ecn, (std::vector<int>{0, ecn_ue, ecn_ue, ecn_ue, ecn_ce}));
  EXPECT_EQ(b.flags, (std::vector<int>{0, 0, 0, 0, 0}));
}

// The same departures behind an InfiniBand gate (layer() = ib): the code points go in the BTH
// flags, UE as frame_flags::tcd_ue and CE as FECN; the ECN bits stay 0.
TEST(LosslessCp, TcdOnAnInfiniBandPortMarksTheBthBits) {
  tcd_bench b("tcd_ib_port");
  ASSERT_TRUE(b.cp);
  b.gate.fabric = link_layer::ib;
  b.ue_then_ce();
  EXPECT_EQ(b.state, (std::vector<int>{0, 1, 1, 1, 2}));
  EXPECT_EQ(b.ecn, (std::vector<int>{0, 0, 0, 0, 0}));
  const int ue = frame_flags::tcd_ue, ce = frame_flags::fecn;
  EXPECT_EQ(b.flags, (std::vector<int>{0, ue, ue, ue, ce}));
}

// TCD's queue is the egress queue the port drains: frames still in the switch pipeline are not in
// it. After an OFF period that ended at 5 us, the port leaves nothing waiting but 5000 B in the
// pipeline (a 100 Gb/s input keeps 6.25 KB in a 500 ns pipeline): undetermined at 6 us; once
// continuously ON past max(Ton) (122.1408 us from the fake gate's loop) its queue, 0, is at most
// tcd.low (2 KB): non-congestion at 128 us, where the trend check (period = max(Ton)) records 0.
// At 250 us 8000 B in the pipeline alone leave it non-congestion; at 260 us, a period after the
// check, 8000 B really waiting, above tcd.high and grown since: congestion. Had the pipeline
// counted, 5000 B > tcd.low would have kept it undetermined for good.
TEST(LosslessCp, TcdCountsOnlyTheFramesPastThePipeline) {
  tcd_bench b("tcd_pipe");
  test::step_driver d("driver");
  d.at(sc_time(6, SC_US), [&] {
    b.gate.off_end = ns_ps(5000);
    b.leave(0, 5000);
  });
  d.at(sc_time(128, SC_US), [&] { b.leave(0, 5000); });
  d.at(sc_time(250, SC_US), [&] { b.leave(0, 8000); });
  d.at(sc_time(260, SC_US), [&] { b.leave(8000, 8000); });  // 8000 B waiting: a real queue
  start(sc_time(270, SC_US));
  EXPECT_EQ(b.state, (std::vector<int>{1, 0, 0, 2}));
  EXPECT_EQ(b.ecn, (std::vector<int>{ecn_ue, 0, 0, ecn_ce}));
}

TEST(LosslessCp, TcdLowAboveHighIsAOneLineError) {
  port_object port("tcd_bad");
  no_injector inj;
  auto cp = cp_policies::instance().make("tcd_bad.prio3.cp", "tcd", port, 3, inj);
  param_registry::instance().set("tcd_bad.prio3.tcd.low", "6KB");
  try {
    cp->check(UINT64_MAX);
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(), "tcd_bad.prio3.tcd.low: 6KB is above tcd_bad.prio3.tcd.high (5KB)");
  }
}

// ce_marking = red: in the congestion state CE follows DCQCN's RED law instead of every frame.
// The sequence of TcdReadsItsLoopFromTheGateAndMarksUeThenCe, with tcd.kmin = 10 KB: at 250 us the
// port turns congestion with 8000 B queued, below kmin: probability 0, left unmarked (not UE
// either); at 260 us, 300 KB queued, above kmax: probability 1, CE.
TEST(LosslessCp, TcdRedCeMarkingFollowsTheRedLawInTheCongestionState) {
  tcd_bench b("tcd_red");
  param_registry::instance().set("tcd_red.prio3.tcd.ce_marking", "red");
  param_registry::instance().set("tcd_red.prio3.tcd.kmin", "10KB");
  test::step_driver d("driver");
  d.at(sc_time(6, SC_US), [&] {
    b.gate.off_end = ns_ps(5000);
    b.leave(8000);  // undetermined: UE as before
  });
  d.at(sc_time(127, SC_US), [&] { b.leave(8000); });
  d.at(sc_time(250, SC_US), [&] { b.leave(8000); });
  d.at(sc_time(260, SC_US), [&] { b.leave(300000); });
  start(sc_time(270, SC_US));
  EXPECT_EQ(b.state, (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(b.ecn, (std::vector<int>{ecn_ue, ecn_ue, 0, ecn_ce}));
}
