// A paused priority stops within one frame time of the PFC frame's arrival and resumes on XON.
#include <gtest/gtest.h>

#include "tests/support/harness.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {
const std::string line_rate_flow = test::one_switch("10MB", "run: {until: 400us}\n");

// Drives the switch's PFC generator by hand and samples the NIC's transmit counter.
struct pause_driver : sc_core::sc_module {
  pfc& sw_port;
  mac_port& nic_port;
  uint64_t at_stop = 0, later = 0, before_resume = 0, after_resume = 0;
  // The PFC frame leaves sw0 at t0 on an idle wire: 64 B take 12.8 ns, then 1 us of cable.
  const sc_time xoff_sent = sc_time(10, SC_US), xon_sent = sc_time(200, SC_US);
  const sc_time flight = sc_time(1012.8, SC_NS), frame_time = sc_time(300, SC_NS);
  pause_driver(sc_core::sc_module_name n, pfc& s, mac_port& m) : sc_module(n), sw_port(s), nic_port(m) {
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(pause_driver);
  void run() {
    wait(xoff_sent);
    sw_port.pause_upstream(3);
    wait(flight + frame_time + sc_time(1, sc_core::SC_PS));  // arrival + one frame time
    at_stop = nic_port.frames_sent();
    wait(sc_time(100, SC_US));
    later = nic_port.frames_sent();
    wait(xon_sent - sc_core::sc_time_stamp());
    sw_port.resume_upstream(3);
    wait(flight - sc_time(1, sc_core::SC_PS));
    before_resume = nic_port.frames_sent();
    wait(sc_time(2, sc_core::SC_PS));
    after_resume = nic_port.frames_sent();
  }
};
}  // namespace

TEST(Pause, StopsWithinOneFrameAndResumesOnXon) {
  auto sim = test::make_sim(line_rate_flow);
  fabric& f = sim->fabric_model();
  pause_driver d("driver", f.switches[0]->ports[0]->flow_control, f.nics[0]->port.mac);
  sim->run();
  EXPECT_GT(d.at_stop, 0u);
  EXPECT_EQ(d.later, d.at_stop) << "frames started while paused";
  EXPECT_EQ(d.before_resume, d.at_stop);
  EXPECT_EQ(d.after_resume, d.at_stop + 1) << "no frame started as XON arrived";
  EXPECT_EQ(f.nics[0]->port.flow_control.pause_received(3), 1u);
  EXPECT_EQ(f.nics[0]->port.flow_control.resume_received(3), 1u);
  // Paused from XOFF arrival (11.0128 us) to XON arrival (201.0128 us).
  EXPECT_EQ(f.nics[0]->port.flow_control.paused_time(3, sc_core::sc_time_stamp()), sc_time(190, SC_US));
}

TEST(Pause, OtherPrioritiesKeepFlowing) {
  auto sim = test::make_sim(line_rate_flow);
  fabric& f = sim->fabric_model();
  pause_driver d("driver", f.switches[0]->ports[0]->flow_control, f.nics[0]->port.mac);
  // Pausing priority 3 must not affect priority 5: move the flow to 5.
  f.flows[0].spec.priority = 5;
  sim->run();
  EXPECT_GT(d.later, d.at_stop);
  EXPECT_EQ(f.nics[0]->port.flow_control.paused_time(5, sc_core::sc_time_stamp()), sc_core::SC_ZERO_TIME);
}

TEST(Pause, PauseExpiresAfterItsQuantaWithoutXon) {
  // 100 quanta at 40 Gb/s = 1.28 us of pause; the NIC restarts by itself.
  auto sim = test::make_sim(line_rate_flow, {{"sw0.port0.pfc.quanta", "100"}});
  fabric& f = sim->fabric_model();
  pause_driver d("driver", f.switches[0]->ports[0]->flow_control, f.nics[0]->port.mac);
  sim->run();
  // 100 us minus the 1.28 us pause, at 300 ns a frame: at least 325 frames.
  EXPECT_GE(d.later - d.at_stop, 325u);
  EXPECT_EQ(f.nics[0]->port.flow_control.paused_time(3, sc_time(100, SC_US)), sc_time(1280, SC_NS));
}
