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


def test_zip_pairs_its_lists_and_crosses_them_with_the_grid():
    df = sluice.sweep(small_incast(), grid={"sample_period": ["10us", "20us"]},
                      zip={"until": ["100us", "200us"], "*.mtu": ["1000B", "1500B"]}, workers=2, progress=False,
                      metrics=["totals.sim_time_ns", "totals.packet_hops"])
    assert list(df.columns[:4]) == ["sample_period", "until", "*.mtu", "seed"]
    assert df.error.isna().all(), df.error
    # Each sample period with each pair, never 100us with 1500B.
    assert list(zip(df.sample_period, df.until, df["*.mtu"])) == [
        ("10us", "100us", "1000B"), ("10us", "200us", "1500B"), ("20us", "100us", "1000B"), ("20us", "200us", "1500B")]
    assert list(df.sim_time_ns) == [100e3, 200e3, 100e3, 200e3]
    with pytest.raises(ValueError, match=r"^zip: paired lists must have the same length \(until: 2, \*.mtu: 1\)$"):
        sluice.sweep(small_incast(), zip={"until": ["100us", "200us"], "*.mtu": ["1000B"]}, progress=False)
    with pytest.raises(ValueError, match=r"^zip: 'until' is in grid too"):
        sluice.sweep(small_incast(), grid={"until": "100us"}, zip={"until": ["200us"]}, progress=False)


def make_incast(senders, link_rate="40Gbps"):
    """A scenario of `senders` senders into one receiver at `link_rate` (a sweep's function)."""
    scenario = small_incast(senders=senders, until="100us")
    scenario["platform"]["link_rate"] = link_rate
    return scenario


def test_a_scenario_function_makes_each_points_topology_and_the_runs_go_to_the_store(tmp_path):
    store = tmp_path / "sweep.sqlite"
    # 4 sender counts x 2 seeds on 4 workers: 8 processes appending to one store.
    df = sluice.sweep(make_incast, grid={"senders": [1, 2, 3, 4]}, zip={"link_rate": ["40Gbps"]}, seeds=[1, 2],
                      set={"*.mtu": "1000B"}, workers=4, progress=False, store=store,
                      metrics=["totals.flows", "totals.packet_hops"])
    assert df.error.isna().all(), df.error.dropna().tolist()
    assert list(df.flows) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert sorted(df.run_id) == list(range(1, 9))
    runs = sluice.store.open(store).runs().set_index("id")
    assert len(runs) == 8
    for _, row in df.iterrows():  # each row's run, with its point as tags
        run = runs.loc[row.run_id]
        assert run["tags"] == {"senders": row.senders, "link_rate": "40Gbps"}
        assert (run["seed"], run["packet_hops"], run["flows"]) == (row.seed, row.packet_hops, row.flows)
    # YAML text works as well as a dict; a rate the function sets shows in the links.
    yaml = sluice.sweep(lambda rate: ("name: y\nplatform: {kind: incast, senders: 1, link_rate: " + rate + "}\n"
                                      "traffic: [{kind: constant, src: h0, dst: r0, rate: 5Gbps, priority: 3}]\n"),
                        grid={"rate": ["10Gbps", "25Gbps"]}, until="50us", workers=2, progress=False,
                        metrics=lambda r: {"rate_bps": r.links["rate_bps"].max()})
    assert list(yaml.rate_bps) == [10e9, 25e9]


def test_a_scenario_function_needs_its_parameters_and_must_return_a_scenario():
    with pytest.raises(ValueError, match=r"^scenario: make_incast's parameter 'senders' is in neither grid nor zip$"):
        sluice.sweep(make_incast, grid={"link_rate": ["10Gbps"]}, progress=False)
    df = sluice.sweep(lambda senders: 42, grid={"senders": [1]}, progress=False)
    assert df.error.iloc[0] == "ValueError: scenario: <lambda>(senders) returned int, not a scenario dict or YAML text"
