"""Sweeps: a grid x seeds as one tidy DataFrame, locally and on a Dask cluster; failing points."""

import pytest

import sluice
from conftest import ROOT, small_incast

HEADROOMS = ["2KiB", "4KiB", "8KiB", "16KiB"]


def test_sweep_of_8_points_on_a_2_worker_dask_cluster(incast):
    distributed = pytest.importorskip("distributed")
    # Given the scheduler's address, as for an existing cluster.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        df = sluice.sweep(incast, grid={"sw0.port*.pfc.headroom": HEADROOMS, "until": "200us"}, seeds=[1, 2],
                          set={"sw0.mmu.threshold": "static"}, client=cluster.scheduler_address, progress=False)
    assert len(df) == 8  # 4 headrooms x 2 seeds
    assert list(df.columns[:3]) == ["sw0.port*.pfc.headroom", "until", "seed"]
    assert df.error.isna().all(), df.error
    assert list(df["sw0.port*.pfc.headroom"]) == [h for h in HEADROOMS for _ in (1, 2)]  # grid order
    # Static XOFF at 48 KiB: each sender's group fills at 10 - 40/16 = 7.5 Gb/s and pauses after
    # ~52 us. After XOFF the group still receives what is on the wire and in flight: 10 Gb/s x
    # 2 x 1 us = 2.5 KB plus up to two 1000 B frames (one being sent each way), ~4.5 KB: 2 KiB
    # of headroom drops, 16 KiB (above the derived default, 13 KiB) never does.
    assert (df.pause_frames > 0).all()
    drops = df.groupby("sw0.port*.pfc.headroom", sort=False).drops.max()
    assert drops["2KiB"] > 0 and drops["16KiB"] == 0
    assert list(drops) == sorted(drops, reverse=True)  # more headroom never adds drops


def test_failing_point_is_reported_without_losing_the_others():
    # 6 senders x 10 Gb/s into 40 Gb/s: congested, so every valid point pauses its senders.
    grid = {"sw0.mmu.threshold": "static", "sw0.port*.pfc.xoff": ["32KiB", "lots", "96KiB"]}
    # Each ingress group takes 10 Gb/s and drains 40/6 Gb/s: it grows 3.33 Gb/s x 500 us = 208 KB,
    # past either XOFF threshold.
    df = sluice.sweep(small_incast(senders=6, until="500us"), grid=grid, seeds=[1], workers=2, progress=False,
                      metrics=["totals.pause_frames", "sw0.port0.prio3.pause_sent"])
    assert len(df) == 3
    failed = df[df.error.notna()]
    assert list(failed["sw0.port*.pfc.xoff"]) == ["lots"]
    assert failed.error.iloc[0] == "ValueError: set: sw0.port0.pfc.xoff: 'lots' is not a number with a unit"
    ok = df[df.error.isna()]
    assert list(ok["sw0.port*.pfc.xoff"]) == ["32KiB", "96KiB"]
    assert (ok.pause_frames > 0).all()
    assert (ok["sw0.port0.prio3.pause_sent"] > 0).all()


def test_metrics_function_gives_its_own_columns(incast):
    df = sluice.sweep(incast, grid={"until": ["50us", "100us"]}, workers=2, progress=False,
                      metrics=lambda r: {"sim_us": r.totals["sim_time_ns"] / 1e3, "hops": r.totals["packet_hops"]})
    assert list(df.sim_us) == [50.0, 100.0]
    assert df.hops.iloc[1] > df.hops.iloc[0]


def test_ctrl_c_stops_a_sweep_and_keeps_the_points_measured_so_far():
    # 4 points of pcn-basic for 1 s simulated (seconds of wall time each) on 2 workers; SIGINT
    # to this process after 0.5 s: the two running points stop cleanly and come back as
    # interrupted rows, the two waiting ones never start.
    import os
    import signal
    import threading

    scenario = str(ROOT / "scenarios" / "pcn-basic.yaml")
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    df = sluice.sweep(scenario, grid={"sw0.port*.pfc.xoff": ["256KB", "512KB", "768KB", "1MB"]}, until="1s",
                      sample_period="10ms", workers=2, progress=False)
    assert df.attrs["interrupted"]
    assert len(df) == 2 and df.interrupted.all() and df.error.isna().all()
    assert list(df["sw0.port*.pfc.xoff"]) == ["256KB", "512KB"]
