"""Firmware from Python (docs/cosimulation.md): <nic>.firmware is a parameter like any other, in
set= and in a dict scenario's params."""
import pytest

import sluice

from conftest import ROOT


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
