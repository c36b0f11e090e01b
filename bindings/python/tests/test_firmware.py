"""Firmware from Python (docs/cosimulation.md): <nic>.firmware is a parameter like any other, in
set= and in a dict scenario's params."""
import pytest

import sluice

from conftest import ROOT
from test_simulation import model_summary


def test_the_dcqcn_firmware_from_set_and_from_the_scenario_runs_as_the_built_in_reaction_point():
    scenario = str(ROOT / "scenarios" / "dumbbell-dcqcn.yaml")
    built_in = sluice.Simulation(scenario).run(until="3ms", progress=False)
    by_set = sluice.Simulation(scenario, set={"h*.firmware": "dcqcn"}).run(until="3ms", progress=False)
    columns = ["tx_bytes", "rx_bytes", "cnp_frames"]
    assert by_set.flows[columns].equals(built_in.flows[columns])
    assert by_set.flows["cnp_frames"].sum() > 0
    assert by_set.summary["counters"]["h1.firmware.cnps"] > 0


def test_a_bad_firmware_setting_raises_value_error_with_one_line():
    scenario = str(ROOT / "scenarios" / "dumbbell-dcqcn.yaml")
    with pytest.raises(ValueError, match=r"h0.firmware.latency: 'cpn' is not an event type"):
        sluice.Simulation(scenario, set={"h0.firmware": "dcqcn", "h0.firmware.latency": "cpn=1us"}).run(progress=False)


DUMBBELL = str(ROOT / "scenarios" / "dumbbell-dcqcn.yaml")
# The switches' ECN marking of class 3, their pause time and dynamic threshold, as a scenario
# sets them and as the control-plane firmware writes them at time 0 (in the registers' units).
IN_SCENARIO = {"sw*.port*.prio3.ecn.kmin": "20000B", "sw*.port*.prio3.ecn.kmax": "100000B",
               "sw*.port*.prio3.ecn.pmax": "0.0625", "sw*.mmu.alpha": "0.25", "sw*.port*.pfc.quanta": "32768"}
BY_FIRMWARE = {"sw*.firmware": "control-plane", "sw*.firmware.ecn_classes": "8", "sw*.firmware.ecn_kmin": "20000",
               "sw*.firmware.ecn_kmax": "100000", "sw*.firmware.ecn_pmax": "4096", "sw*.firmware.mmu_alpha": "64",
               "sw*.firmware.pfc_quanta": "32768"}


def write_the_configuration(s):
    for sw in ("sw0", "sw1"):
        s.reg_write(sw, "MMU_ALPHA", 64)
        for port in range(5):
            s.reg_write(sw, f"switch_port[{port}].PFC_QUANTA", 32768)
            s.reg_write(sw, f"switch_port[{port}].ECN_KMIN[3]", 20000)
            s.reg_write(sw, f"switch_port[{port}].ECN_KMAX[3]", 100000)
            s.reg_write(sw, f"switch_port[{port}].ECN_PMAX[3]", 4096)


def test_the_control_plane_firmware_and_register_writes_at_time_zero_give_the_scenario_configured_run():
    configured = sluice.Simulation(DUMBBELL, set=IN_SCENARIO).run(until="5ms", progress=False)
    firmware = sluice.Simulation(DUMBBELL, set=BY_FIRMWARE)
    firmware.at("1us", lambda s: [s.mailbox(sw, "config") for sw in ("sw0", "sw1")], name="config")
    by_firmware = firmware.run(until="5ms", progress=False)
    python = sluice.Simulation(DUMBBELL)
    python.at("0us", write_the_configuration)
    by_python = python.run(until="5ms", progress=False)
    default = sluice.Simulation(DUMBBELL).run(until="5ms", progress=False)
    assert model_summary(by_firmware.summary) == model_summary(configured.summary)
    assert model_summary(by_python.summary) == model_summary(configured.summary)
    assert by_firmware.flows.equals(configured.flows) and by_python.flows.equals(configured.flows)
    assert model_summary(default.summary) != model_summary(configured.summary)  # the settings matter
    # Init wrote MMU_ALPHA and, on each of 5 ports, PFC_QUANTA and class 3's three ECN registers.
    assert list(by_firmware.probe("config").iloc[0]) == [b"writes 21 skipped 0"] * 2


def test_the_mailbox_answers_from_a_callback_and_a_device_without_firmware_is_a_value_error():
    sim = sluice.Simulation(DUMBBELL, set={"sw0.firmware": "control-plane"})
    sim.at("10us", lambda s: s.mailbox("sw0", b"config"), name="reply")
    assert sim.run(until="20us", progress=False).probe("reply").iloc[0] == b"writes 0 skipped 0"
    sim = sluice.Simulation(DUMBBELL)
    sim.at("10us", lambda s: s.mailbox("h0", "hello"))
    with pytest.raises(ValueError, match=r"^h0: runs no firmware \(set h0.firmware\)$"):
        sim.run(until="20us", progress=False)
