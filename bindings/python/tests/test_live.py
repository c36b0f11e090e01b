"""Parameters that change during a run: live.set in a callback takes effect at its simulated time."""

import pytest

import sluice
from test_simulation import model_summary

STATIC = {"sw0.mmu.threshold": "static"}
PFC_COUNTERS = ("sw0.port*.prio3.pause_sent", "sw0.port*.prio3.refresh_sent", "sw0.port*.prio3.resume_sent")


def pfc_counters(s):
    out = {}
    for pattern in PFC_COUNTERS:
        out.update(s.counters(pattern))
    return out


def incast_run(incast, write_at=None, set=None):
    sim = sluice.Simulation(incast, set={**STATIC, **(set or {})})
    sim.every("10us", pfc_counters, name="pfc")  # added first: at 1 ms it samples before the write
    if write_at is not None:
        sim.at(write_at, lambda s: s.set("sw0.port*.pfc.xoff", "24KiB"), name="write")
    return sim.run(until="2ms", progress=False)


def test_a_write_at_one_millisecond_changes_nothing_before_it(incast):
    without = incast_run(incast)
    with_write = incast_run(incast, write_at="1ms")
    assert with_write.probe("write").tolist() == [17]  # every sw0 port's pfc.xoff
    a, b = without.probe("pfc"), with_write.probe("pfc")
    assert list(a.index) == list(b.index)
    early = [t for t in a.index if t <= 1000.0]
    assert len(early) == 100
    assert sum(a[1000.0].values()) > 100  # pauses happened before the write
    for t in early:  # every PFC frame counter, every 10 us up to and including 1 ms
        assert a[t] == b[t], f"at {t} us"
    assert a[2000.0] != b[2000.0]  # and the write changed what came after it


def test_a_write_at_time_zero_equals_setting_the_value_in_the_scenario(incast):
    written = incast_run(incast, write_at="0us")
    in_scenario = incast_run(incast, set={"sw0.port*.pfc.xoff": "24KiB"})
    assert model_summary(written.summary) == model_summary(in_scenario.summary)
    for name in ("queue", "throughput", "pause"):
        assert written.timeseries(name).equals(in_scenario.timeseries(name))
    assert written.probe("pfc").tolist() == in_scenario.probe("pfc").tolist()


def test_writing_a_fixed_parameter_raises_a_one_line_value_error(incast):
    sim = sluice.Simulation(incast)
    sim.at("10us", lambda s: s.set("sw0.mmu.buffer", "1MiB"))
    with pytest.raises(ValueError) as e:
        sim.run(until="20us", progress=False)
    assert str(e.value) == "sw0.mmu.buffer: fixed after elaboration, it cannot change during a run (not a live parameter)"
    sim = sluice.Simulation(incast)
    sim.at("10us", lambda s: s.set("sw0.port*.pfc.xoff", "lots"))
    with pytest.raises(ValueError, match=r"^sw0\.port0\.pfc\.xoff: 'lots' is not a number with a unit$"):
        sim.run(until="20us", progress=False)


def test_a_live_link_rate_and_parameter_read_back(incast):
    def change(s):
        s.set("sw0-r0.rate", "10Gbps")
        return s.param("sw0-r0.rate"), s.link("sw0-r0").rate

    sim = sluice.Simulation(incast)
    sim.at("100us", change, name="rate")
    assert sim.run(until="200us", progress=False).probe("rate").iloc[0] == ("10Gbps", "10Gbps")
