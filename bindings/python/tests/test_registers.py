"""Registers from Python callbacks: live.reg_read / reg_write by device and path or address, at the
callback's simulated time (docs/cosimulation.md#register-maps)."""

import pytest

import sluice
from test_simulation import model_summary

STATIC = {"sw0.mmu.threshold": "static"}


def registers_at_100us(s):
    kmin = s.reg_read("sw0", "switch_port[1].PFC_XOFF")
    frames = s.reg_read("sw0", "switch_port[16].FRAMES_OUT_LO[3]", debug=True)
    assert frames == s.counter("sw0.port16.prio3.frames_out")  # the count up to now
    address = 0x10000 + 16 * 0x1000 + 0x680 + 3 * 8  # the same register by address
    assert s.reg_read("sw0", address, debug=True) == frames
    assert s.reg_read("sw0", "INFO.PORTS") == 17  # one field
    s.reg_write("sw0", "SCRATCH", 0x1234)
    s.reg_write("sw0", "INT_ENABLE.DROP", 1)  # one field: read, modify, write
    return [kmin, frames, s.reg_read("sw0", "SCRATCH"), s.reg_read("sw0", "INT_ENABLE")]


def test_reads_and_writes_by_path_field_and_address(incast):
    sim = sluice.Simulation(incast, set=STATIC)
    sim.at("100us", registers_at_100us, name="regs")
    result = sim.run(until="200us", progress=False)
    kmin, frames, scratch, enable = result.probe("regs").iloc[0]
    assert kmin == 48 * 1024 and frames > 100 and scratch == 0x1234 and enable == 2


def test_a_register_write_at_time_zero_equals_the_value_in_the_scenario(incast):
    sim = sluice.Simulation(incast, set=STATIC)
    sim.at("0us", lambda s: [s.reg_write("sw0", f"switch_port[{p}].PFC_XOFF", 24 * 1024) for p in range(17)])
    written = sim.run(until="1ms", progress=False)
    in_scenario = sluice.Simulation(incast, set={**STATIC, "sw0.port*.pfc.xoff": "24KiB"}).run(until="1ms", progress=False)
    assert model_summary(written.summary) == model_summary(in_scenario.summary)


@pytest.mark.parametrize(
    "device, register, value, message",
    [
        ("sw0", "MMU_BUFFER", 1, r"^sw0: register switch_globals.MMU_BUFFER: read-only$"),
        ("sw0", 0xFFF0, 1, r"^sw0: no register at 0xfff0$"),
        ("sw0", "switch_port[1].ECN_KMIN[3]", 1, r"no parameter sw0.port1.prio3.ecn.kmin in this configuration"),
        ("sw9", "SCRATCH", 1, r"^registers: 'sw9' is no switch or NIC of this fabric$"),
        ("sw0", "NOPE", 1, r"no such register in the switch map"),
        ("sw0", "switch_port[x].PFC_XOFF", 1, r"an index is written \[N\]"),
    ],
)
def test_a_refused_access_raises_a_one_line_value_error(incast, device, register, value, message):
    sim = sluice.Simulation(incast)
    sim.at("10us", lambda s: s.reg_write(device, register, value))
    with pytest.raises(ValueError, match=message):
        sim.run(until="20us", progress=False)
