"""The plot helpers on a real run: what each draws is checked, not only that it draws."""

import pytest

import sluice
from conftest import ROOT


@pytest.fixture(scope="module")
def pcn():
    # pcn-basic, 7 ms: the bursts (h2..h15, 16 flows of 64 KB each) start at 1 ms and complete.
    return sluice.Simulation(ROOT / "scenarios" / "pcn-basic.yaml").run(progress=False)


def test_slowdown_is_at_least_one(pcn):
    # FCT >= size x 8 / the sender's rate: a flow cannot finish faster than its own bits leave.
    s = sluice.plots.slowdown(pcn)
    assert len(s) == pcn.totals["flows_completed"] > 0
    assert (s.slowdown > 1).all()


def test_fct_cdf_and_slowdown_by_size_draw_every_completed_flow(pcn):
    ax = sluice.plots.fct_cdf({"pfc": pcn})
    x, y = ax.lines[0].get_data()
    assert len(x) == pcn.totals["flows_completed"] and y[-1] == 1.0
    assert x[-1] == pytest.approx(pcn.flows.fct_ns.max() / 1e3)
    ax = sluice.plots.slowdown_by_size(pcn)
    assert len(ax.lines) == 2  # median and p99


def test_pause_heatmap_has_one_row_per_port_ever_paused(pcn):
    paused = pcn.timeseries("paused")
    ax = sluice.plots.pause_heatmap(pcn)
    assert len(ax.get_yticks()) == (paused.max() > 0).sum() > 1
    assert sluice.plots.egress_direction(pcn, "sw0.port2.p3") == "sw0->sw1"


def test_queue_and_rate_and_phase_plane(pcn):
    fig = sluice.plots.queue_and_rate(pcn, links=["sw0->sw1"])
    assert [line.get_label() for line in fig.axes[1].lines] == ["sw0->sw1"]
    ax = sluice.plots.phase_plane(pcn, queue="sw0.port2.p3")
    assert ax.get_ylabel() == "sw0->sw1 throughput (Gb/s)"
