"""The Python API: repeated runs, dict scenarios, callbacks in simulated time, errors, listings."""

import json
import shutil
import os
import signal
import subprocess
import sys

import pandas as pd
import pytest

import sluice
from conftest import ROOT, small_incast

# Fields that measure the host, not the model.
HOST_FIELDS = ("wall_time_s", "elaboration_s")


def model_summary(summary):
    out = json.loads(json.dumps(summary))
    for f in HOST_FIELDS:
        out["totals"].pop(f)
    out.pop("provenance")  # how the run was asked for, not what the models computed
    return out


def test_same_scenario_twice_in_one_session_gives_identical_results(incast):
    sim = sluice.Simulation(incast, seed=7, set={"sw0.mmu.threshold": "static", "sw0.port*.pfc.xoff": "96KiB"})
    sim.every("50us", lambda s: s.counter("sw0.port16.prio3.queue_bytes"), name="q")
    a, b = sim.run(until="300us"), sim.run(until="300us")
    assert model_summary(a.summary) == model_summary(b.summary)
    for name in sluice.SERIES_NAMES:
        pd.testing.assert_frame_equal(a.timeseries(name), b.timeseries(name))
    pd.testing.assert_series_equal(a.probe("q"), b.probe("q"))
    assert a.summary["seed"] == 7


def test_module_and_cli_share_one_implementation(incast, tmp_path):
    """The same scenario, seed and overrides through the CLI and through Python give the same
    summary and the same series: one loader, one run, one report."""
    cli = os.environ.get("SLUICE_BINARY", str(ROOT / "build" / "platforms" / "sluice"))
    subprocess.run([cli, "run", incast, "--until", "300us", "--seed", "3", "--set", "*.mtu=1500B", "--out", str(tmp_path),
                    "--quiet"], check=True)
    result = sluice.Simulation(incast, seed=3, set={"*.mtu": "1500B"}).run(until="300us", progress=False)
    assert model_summary(json.loads((tmp_path / "summary.json").read_text())) == model_summary(result.summary)
    csv = pd.read_csv(tmp_path / "queue_depth.csv", index_col="time_us")
    pd.testing.assert_frame_equal(csv.astype(float), result.timeseries("queue"), check_exact=False, rtol=1e-5)  # CSV: 6 digits


def test_dict_scenario_and_the_built_fabric():
    fabric = sluice.fabric(small_incast(senders=3))
    assert list(fabric.switches.name) == ["sw0"]
    assert fabric.nics == ["h0", "h1", "h2", "r0"]
    assert set(fabric.flows.name) == {"h0->r0", "h1->r0", "h2->r0"}
    assert len(fabric.links) == 4  # one per NIC
    sw_ports = fabric.ports[fabric.ports.node == "sw0"]
    assert list(sw_ports.peer) == ["h0", "h1", "h2", "r0"]
    result = sluice.Simulation(small_incast(senders=3)).run(progress=False)
    assert result.summary["scenario"] == "small-incast"
    assert result.totals["sim_time_ns"] == 200_000  # run.until of the dict
    assert list(result.flows.index) == ["h0->r0", "h1->r0", "h2->r0"]


def test_callback_changing_a_link_rate_shows_in_the_throughput_series_at_that_time(incast):
    # 16 senders x 10 Gb/s offer 160 Gb/s to sw0->r0, so it stays saturated: 40 Gb/s until the
    # callback at 300 us, then 10 Gb/s. A row counts the 1000 B frames (mtu 1000B, header 0)
    # that started in its 10 us period: 40 Gb/s = 50 frames exactly; 10 Gb/s = 12.5 frames, so
    # a row holds 12 or 13 of them, 9.6 or 10.4 Gb/s: within one frame (8000 bit / 10 us =
    # 0.8 Gb/s) of 10.
    sim = sluice.Simulation(incast)
    sim.at("300us", lambda s: s.link("sw0->r0").set_rate("10Gbps"))
    r = sim.run(until="500us", progress=False).timeseries("link")["sw0->r0"]
    before, after = r[(r.index > 20) & (r.index <= 300)], r[r.index > 300]
    assert (abs(before - 40) <= 0.8).all(), before
    assert (abs(after - 10) <= 0.8).all(), after
    assert abs(after.mean() - 10) < 0.1
    assert len(after) == 20  # rows at 310 ... 500 us


def test_periodic_probe_returns_one_sample_per_period_up_to_the_end(incast):
    # every 100 us over 1 ms: calls at 100, 200, ..., 1000 us (the end included) = 10 samples.
    sim = sluice.Simulation(incast)
    sim.every("100us", lambda s: s.counter("sw0.port16.prio3.queue_bytes"), name="queue")
    sim.every("250us", lambda s: s.now_us, name="clock")
    result = sim.run(until="1ms", progress=False)
    q = result.probe("queue")
    assert list(q.index) == [100.0 * k for k in range(1, 11)]
    assert (q > 0).all()  # 160 Gb/s into 40 Gb/s: a standing queue
    clock = result.probe("clock")
    assert list(clock.index) == list(clock) == [250.0, 500.0, 750.0, 1000.0]  # the callback sees its own time


def test_callback_reads_and_writes_the_live_fabric(incast):
    seen = {}

    def look(s):
        seen["rate"] = s.link("h0-sw0").rate
        seen["xoff"] = s.param("sw0.port16.pfc.xoff")
        seen["links"] = len(s.counters("*.ab.frames"))
        return s.counter("h0-sw0.ab.frames")

    sim = sluice.Simulation(incast, set={"sw0.mmu.threshold": "static", "sw0.port*.pfc.xoff": "96KiB"})
    sim.at("100us", look, name="frames")
    result = sim.run(until="200us", progress=False)
    # In the child: values come back as the callback's return, not through the closure.
    assert seen == {}
    assert result.probe("frames").iloc[0] > 0
    sim2 = sluice.Simulation(incast, set={"sw0.mmu.threshold": "static", "sw0.port*.pfc.xoff": "96KiB"})
    sim2.at("100us", lambda s: (s.link("h0-sw0").rate, s.param("sw0.port16.pfc.xoff"), len(s.counters("*.ab.frames"))), name="v")
    assert sim2.run(until="200us", progress=False).probe("v").iloc[0] == ("40Gbps", "96KiB", 17)


def test_invalid_parameter_raises_value_error_with_the_models_message(incast):
    with pytest.raises(ValueError) as e:
        sluice.Simulation(incast, set={"sw0.port*.pfc.xoff": "lots"}).run()
    assert str(e.value) == "set: sw0.port0.pfc.xoff: 'lots' is not a number with a unit"
    with pytest.raises(ValueError, match=r"^set: nosuch\.\*: no parameter matches"):
        sluice.Simulation(incast, set={"nosuch.*": "1"}).run()
    with pytest.raises(ValueError, match=r"^until: 'soon' "):
        sluice.Simulation(incast).run(until="soon")
    bad = small_incast()
    bad["platform"]["sendrs"] = 2
    with pytest.raises(ValueError, match="sendrs"):
        sluice.Simulation(bad).run()
    sim = sluice.Simulation(incast)
    sim.at("10us", lambda s: s.link("sw0->nowhere").set_rate("1Gbps"))
    with pytest.raises(ValueError, match=r"^link: 'sw0->nowhere' is not a link direction$"):
        sim.run(until="20us")


def test_exception_in_a_callback_reaches_the_caller(incast):
    sim = sluice.Simulation(incast)
    sim.at("10us", lambda s: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        sim.run(until="100us")


def test_the_gil_is_released_while_simulating(incast):
    # A Python thread started by the first callback notes the longest pause in its loop until
    # the second callback, 50 ms of simulated time (well over 0.1 s of wall time) later. Were
    # the GIL held while SystemC runs, the thread would stand still from the end of the first
    # callback to the second: its longest pause would be nearly the whole interval. With the
    # GIL free it loops throughout, its pauses only the OS's and the callbacks' (milliseconds).
    import threading
    import time

    spin = {"gap": 0.0, "stop": threading.Event()}

    def start(s):
        spin["t0"] = time.perf_counter()

        def loop():
            last = time.perf_counter()
            while not spin["stop"].is_set():
                now = time.perf_counter()
                spin["gap"] = max(spin["gap"], now - last)
                last = now

        threading.Thread(target=loop, daemon=True).start()

    def read(s):
        spin["stop"].set()
        return spin["gap"], time.perf_counter() - spin["t0"]

    sim = sluice.Simulation(incast)
    sim.at("1us", start)
    sim.at("50ms", read, name="spin")
    gap, wall = sim.run(until="50ms", progress=False).probe("spin").iloc[0]
    assert wall > 0.05
    assert gap < wall / 2, (gap, wall)


def test_an_unpicklable_probe_value_is_an_error_not_a_lost_child(incast):
    sim = sluice.Simulation(incast)
    sim.at("10us", lambda s: s)  # the live view itself: it cannot leave the run
    with pytest.raises(RuntimeError, match=r"^the result cannot be sent back \(pickle\)"):
        sim.run(until="20us")


def test_interrupt_stops_cleanly_and_keeps_what_was_measured(incast):
    # SIGINT to the simulation process (what Ctrl-C does) at 100 us: the run stops at its next
    # check, every until/200 = 10 us, and returns its results so far.
    sim = sluice.Simulation(incast)
    sim.at("100us", lambda s: os.kill(os.getpid(), signal.SIGINT))
    result = sim.run(until="2ms", progress=False)
    assert result.interrupted
    assert 100_000 <= result.totals["sim_time_ns"] <= 110_000
    assert result.totals["packet_hops"] > 0


def test_interrupt_reaching_only_the_parent_is_forwarded_to_the_run():
    # A Jupyter interrupt: SIGINT to the Python process only, while it waits for the run
    # (pcn-basic for 1 s simulated: seconds of wall time). The parent forwards it; the run
    # stops at its next check (every 5 ms simulated) and its results come back.
    import threading

    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    result = sluice.Simulation(ROOT / "scenarios" / "pcn-basic.yaml").run(until="1s", progress=False)
    assert result.interrupted
    assert 0 < result.totals["sim_time_ns"] < 1e9
    assert result.totals["sim_time_ns"] % 5e6 == 0


def _ctrl_c_to_child(delay_s, gap_s):
    """Ctrl-C as the child sees it: the terminal's SIGINT once the child exists, after delay_s,
    and the parent's forwarded copy gap_s later (sent here directly, so that the parent itself
    never gets one after the run: a real Ctrl-C then is the caller's to handle)."""
    from sluice import _child

    import threading
    import time

    def send():
        deadline = time.monotonic() + 10
        while not _child._live_children and time.monotonic() < deadline:
            time.sleep(0.0005)
        pids = list(_child._live_children)
        for wait in (delay_s, gap_s):
            time.sleep(wait)
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGINT)
                except ProcessLookupError:  # already reaped: the result is back
                    pass

    t = threading.Thread(target=send)
    t.start()
    return t


def test_ctrl_c_at_any_moment_of_a_run_gives_an_interrupted_result_never_a_lost_child():
    # The first SIGINT reaches the child during its elaboration or its run, the second up to
    # 40 ms later: while the child builds and pickles its result, where a KeyboardInterrupt used
    # to lose it (ChildDied, about 1 Ctrl-C in 36). 36 deterministic phases; each run stops at
    # its first check after the first signal, so the whole test takes seconds. The run is long
    # enough (200 ms simulated) that even a fast build is still running at the last phase's
    # first signal (a 20 ms run could end before it under load).
    scenario = small_incast(senders=4, until="200ms")
    for i in range(36):
        t = _ctrl_c_to_child(delay_s=(i % 6) * 0.004, gap_s=(i // 6) * 0.008)
        try:
            result = sluice.Simulation(scenario).run(progress=False)
        finally:
            t.join()
        assert result.interrupted, f"phase {i}"
        assert result.totals["sim_time_ns"] < 200e6, f"phase {i}"


def test_params_and_stats_as_dataframes(incast):
    p = sluice.params(incast, match="sw0.port16.pfc.*")
    assert list(p.columns) == ["name", "unit", "default", "value", "range", "change", "description"]
    xoff = p.set_index("name").loc["sw0.port16.pfc.xoff"]
    assert (xoff.unit, xoff.default) == ("bytes", "48KiB")
    assert sluice.params(incast, match="sw0.port16.pfc.xoff", set={"*.xoff": "96KiB"}, allow_inert=True).value[0] == "96KiB"
    s = sluice.stats(incast, match="sw0.port16.prio3.*")
    assert "sw0.port16.prio3.queue_bytes" in set(s.name)
    with pytest.raises(ValueError, match=r"^match: 'zzz' matches no parameter$"):
        sluice.params(incast, match="zzz")


def test_timeseries_names_map_to_the_report_series(incast):
    result = sluice.Simulation(incast).run(until="100us", progress=False)
    q = result.timeseries("queue")
    assert q.index.name == "time_us" and len(q) == 10  # sample_period 10us over 100us
    assert "sw0.port16.p3" in q.columns
    assert list(result.timeseries("link").columns[:2]) == ["h0->sw0", "sw0->h0"]
    with pytest.raises(ValueError, match="timeseries: 'nope'"):
        result.timeseries("nope")


def test_a_run_prints_no_systemc_banner(incast):
    """The tool owns its output in a script as on the command line: SystemC's copyright banner
    must not appear even when the caller's environment does not turn it off."""
    env = {k: v for k, v in os.environ.items() if k != "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"}
    code = f"import sluice; sluice.Simulation({incast!r}).run(until='1us')"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Copyright" not in done.stdout + done.stderr


def test_a_setting_that_does_nothing_is_an_error_or_with_allow_inert_a_warning(incast):
    with pytest.raises(ValueError) as e:
        sluice.Simulation(incast, set={"sw0.port0.pfc.xoff": "96KiB"}).run(until="20us", progress=False)
    assert str(e.value) == ("set: sw0.port0.pfc.xoff=96KiB has no effect: sw0.mmu.threshold is 'dynamic', which does "
                            "not read pfc.xoff (allow_inert or run.allow_inert: true to run anyway)")
    with pytest.raises(ValueError, match=r"^set: \*\.xoff=96KiB has no effect on any of its 17 matches"):
        sluice.params(incast, set={"*.xoff": "96KiB"})
    result = sluice.Simulation(incast, set={"sw0.port0.pfc.xoff": "96KiB"}, allow_inert=True).run(until="20us",
                                                                                                 progress=False)
    assert result.summary["warnings"] == [
        "set: sw0.port0.pfc.xoff=96KiB has no effect: sw0.mmu.threshold is 'dynamic', which does not read pfc.xoff"]


def test_a_setting_of_a_scheme_no_flow_uses_is_inert_not_unknown(incast):
    line = "set: *.qcn.gd=0.25 has no effect: it belongs to scheme 'qcn', which no flow of this run uses (cc dcqcn)"
    with pytest.raises(ValueError) as e:
        sluice.Simulation(incast, cc="dcqcn", set={"*.qcn.gd": "0.25"}).run(until="20us", progress=False)
    assert str(e.value) == line + " (allow_inert or run.allow_inert: true to run anyway)"
    result = sluice.Simulation(incast, cc="dcqcn", set={"*.qcn.gd": "0.25"}, allow_inert=True).run(until="20us",
                                                                                                  progress=False)
    assert result.summary["warnings"] == [line]
    with pytest.raises(ValueError, match=r"^set: \*\.qcn\.gdd: no parameter matches"):
        sluice.Simulation(incast, cc="dcqcn", set={"*.qcn.gdd": "0.25"}).run(until="20us", progress=False)


def test_a_hardware_profile_sets_defaults_and_settings_win(incast):
    p = sluice.params(incast, match="*.header", profile="40g").set_index("name")
    assert set(p.value) == {"66B"} and set(p.default) == {"66B"}
    p = sluice.params(incast, match="sw0.mmu.buffer", profile="100g", set={"sw0.mmu.buffer": "8MiB"})
    assert (p.default[0], p.value[0]) == ("32MiB", "8MiB")
    with pytest.raises(ValueError, match=r"^profile: '25g' is not one of \{default, 40g, 100g\}$"):
        sluice.params(incast, profile="25g")


def test_a_result_says_how_it_was_made(incast):
    r = sluice.Simulation(incast, seed=3, set={"sw0.mmu.threshold": "static"}).run(until="50us")
    p = r.provenance
    assert p["seed"] == 3 and p["until"] == "50us"
    assert {"origin": "set", "pattern": "sw0.mmu.threshold", "value": "static"} in p["overrides"]
    assert len(p["scenario_sha256"]) == 64
    assert p["git_commit"] == "unknown" or len(p["git_commit"]) == 40


def test_packet_capture_from_python_matches_the_cli(incast, tmp_path):
    """run(pcap=..., capture=...) writes the same pcapng file as the CLI's --pcap --capture, and
    the summary is the same as without a capture."""
    cli = os.environ.get("SLUICE_BINARY", str(ROOT / "build" / "platforms" / "sluice"))
    subprocess.run([cli, "run", incast, "--until", "200us", "--quiet", "--pcap", str(tmp_path / "cli"),
                    "--capture", "h0.port0", "--capture-kinds", "data,pfc"], check=True)
    sim = sluice.Simulation(incast)
    with_capture = sim.run(until="200us", progress=False, pcap=tmp_path / "py", capture=["h0.port0"],
                           capture_kinds=["data", "pfc"])
    without = sim.run(until="200us", progress=False)
    data = (tmp_path / "py" / "h0.port0.pcapng").read_bytes()
    assert data[:4] == b"\x0a\x0d\x0d\x0a"  # a pcapng section header
    assert data == (tmp_path / "cli" / "h0.port0.pcapng").read_bytes()
    assert model_summary(with_capture.summary) == model_summary(without.summary)
    with pytest.raises(ValueError, match="pcap: needs capture"):
        sim.run(until="10us", progress=False, pcap=tmp_path / "bad")


def test_frame_trace_from_python_matches_the_cli_csv(incast, tmp_path):
    """run(trace_frames=...) gives frame_trace.csv's rows as a DataFrame."""
    cli = os.environ.get("SLUICE_BINARY", str(ROOT / "build" / "platforms" / "sluice"))
    subprocess.run([cli, "run", incast, "--until", "100us", "--quiet", "--out", str(tmp_path), "--trace-frames", "flow=0"],
                   check=True)
    csv = pd.read_csv(tmp_path / "frame_trace.csv")
    trace = sluice.Simulation(incast).run(until="100us", progress=False, trace_frames="flow=0").frame_trace
    assert len(trace) == len(csv) > 0
    assert list(trace["frame_id"]) == list(csv["frame_id"])
    assert list(trace["event"]) == list(csv["event"])
    assert list(trace["at"]) == list(csv["at"])
    assert (trace["time_ns"] - csv["time_ns"]).abs().max() < 1e-6
    assert sluice.Simulation(incast).run(until="10us", progress=False).frame_trace is None


def test_waveform_from_python(incast, tmp_path):
    """run(vcd=..., trace=...) writes the VCD the CLI's --vcd --trace writes."""
    cli = os.environ.get("SLUICE_BINARY", str(ROOT / "build" / "platforms" / "sluice"))
    subprocess.run([cli, "run", incast, "--until", "100us", "--quiet", "--vcd", str(tmp_path / "cli.vcd"), "--trace",
                    "sw0.port16.prio3.queue_bytes"], check=True)
    sluice.Simulation(incast).run(until="100us", progress=False, vcd=tmp_path / "py.vcd",
                                  trace=["sw0.port16.prio3.queue_bytes"])
    text = (tmp_path / "py.vcd").read_text()
    assert "$timescale 1ps $end" in text and "queue_bytes" in text
    assert text == (tmp_path / "cli.vcd").read_text()


def vcd_changes(path):
    """A VCD's changes per signal name (scopes joined by '.'): [(time_ps, value)], integers read
    as signed 64-bit (two's complement)."""
    names, changes, scope, now = {}, {}, [], 0
    words = iter(path.read_text().split())
    for w in words:
        if w == "$scope":
            next(words)
            scope.append(next(words))
        elif w == "$upscope":
            scope.pop()
        elif w == "$var":
            _, _, code, leaf = next(words), next(words), next(words), next(words)
            names[code] = ".".join(scope + [leaf])
            changes[names[code]] = []
        elif w.startswith("#"):
            now = int(w[1:])
        elif w.startswith("b"):
            v = int(w[1:], 2)
            changes[names[next(words)]].append((now, v - (1 << 64) if v >> 63 else v))
    return changes


def value_at(changes, t, inclusive):
    v = 0
    for time, value in changes:
        if time > t or (time == t and not inclusive):
            break
        v = value
    return v


def test_vcd_fb_is_the_qcn_congestion_points_fb_at_every_moment(tmp_path):
    """<port>.prio<k>.fb holds the Fb of the congestion point's last sample: at every 5 us it
    equals the statistic <port>.prio<k>.qcn.last_fb read by a callback, negative (congestion) at
    the bottleneck sw0 -> sw1."""
    sim = sluice.Simulation(str(ROOT / "scenarios" / "dumbbell.yaml"), cc="qcn")
    sim.every("5us", lambda live: live.counters("sw*.prio3.qcn.last_fb"), name="fb")
    probes = sim.run(until="2ms", progress=False, vcd=tmp_path / "fb.vcd", trace="sw*.prio3.fb").probe("fb")
    vcd = vcd_changes(tmp_path / "fb.vcd")
    assert len(probes) == 400
    checked = negative = 0
    for t_us, counters in probes.items():
        t = round(t_us * 1e6)
        for name, fb in counters.items():
            signal = name.replace(".qcn.last_fb", ".fb")
            assert fb in (value_at(vcd[signal], t, True), value_at(vcd[signal], t, False)), (signal, t_us)
            checked += 1
            negative += fb < 0
    assert checked == 400 * 10 and negative > 20  # every switch port's class 3 has a QCN congestion point
    assert min(v for _, v in vcd["sw0.port4.prio3.fb"]) < 0
    # ECM's congestion point publishes its Fb the same way: negative samples at the bottleneck.
    sluice.Simulation(str(ROOT / "scenarios" / "dumbbell-ecm.yaml")).run(
        until="2ms", progress=False, vcd=tmp_path / "ecm.vcd", trace="sw0.port4.prio3.fb")
    assert sum(v < 0 for _, v in vcd_changes(tmp_path / "ecm.vcd")["sw0.port4.prio3.fb"]) > 0


def _without_process_values(summary):
    for key in ("wall_time_s", "elaboration_s"):
        summary["totals"].pop(key)
    for key in ("host", "date"):
        summary["provenance"].pop(key)
    summary["counters"].pop("sluice.packet_pool.allocated", None)
    summary.pop("windows", None)  # how a windowed run ran (its plan, its threads' wall time)
    return summary


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="mpirun not installed")
def test_a_run_over_two_processes_gives_the_single_runs_result():
    sim = sluice.Simulation(ROOT / "scenarios" / "fat-tree.yaml")
    one = sim.run(until="200us", progress=False)
    two = sim.run(until="200us", partitions=2)
    assert _without_process_values(two.summary) == _without_process_values(one.summary)
    pd.testing.assert_frame_equal(two.timeseries("queue"), one.timeseries("queue"))
    with pytest.raises(ValueError, match="^partitions: 'x' is not a count"):
        sim.run(until="200us", partitions="x")
    with pytest.raises(ValueError, match="^partition_method: 'pod' needs partitions of 2 or more"):
        sim.run(until="200us", partition_method="pod")
    with pytest.raises(ValueError, match="^pcap: not with partitions"):
        sim.run(until="200us", partitions=2, pcap="/tmp/x")
    bad = sluice.Simulation(ROOT / "scenarios" / "fat-tree.yaml", set={"sw*.port*.pfc.quanta": "many"})
    with pytest.raises(RuntimeError, match=r"^sluice: rank \d: error: --set: sw\*\.port\*\.pfc\.quanta: no parameter matches"):
        bad.run(until="200us", partitions=2)


def test_window_partitions_give_the_whole_runs_result():
    sim = sluice.Simulation(ROOT / "scenarios" / "fat-tree.yaml")
    one = sim.run(until="200us", progress=False)
    four = sim.run(until="200us", progress=False, window_partitions=4, partition_method="pod")
    assert _without_process_values(four.summary) == _without_process_values(one.summary)
    pd.testing.assert_frame_equal(four.timeseries("queue"), one.timeseries("queue"))
    with pytest.raises(ValueError, match="^window_partitions: 'x' is not a count"):
        sim.run(until="200us", window_partitions="x")
    with pytest.raises(ValueError, match="^window_partitions: not with partitions"):
        sim.run(until="200us", window_partitions=2, partitions=2)
    with pytest.raises(ValueError, match="^window_partitions: '0' is not from 1 to 254"):
        sim.run(until="200us", progress=False, window_partitions=0)
    with pytest.raises(ValueError, match=r"^trace_frames: not with window_partitions \(written in event order"):
        sim.run(until="200us", progress=False, window_partitions=2, trace_frames="flow=1")


def test_window_threads_give_the_whole_runs_result():
    sim = sluice.Simulation(ROOT / "scenarios" / "fat-tree.yaml")
    one = sim.run(until="200us", progress=False)
    two = sim.run(until="200us", progress=False, window_partitions=4, window_threads=2, partition_method="pod")
    windows = two.summary["windows"]
    assert (windows["partitions"], windows["method"], windows["threads"]) == (4, "pod", 2)
    assert windows["windows"] >= 197  # 200 us of 1.0128 us windows, from the first wake-up on
    assert len(windows["threads_busy_s"]) == 2
    assert all(0 < busy <= windows["steps_s"] for busy in windows["threads_busy_s"])
    assert "windows" not in one.summary
    assert _without_process_values(two.summary) == _without_process_values(one.summary)
    pd.testing.assert_frame_equal(two.timeseries("queue"), one.timeseries("queue"))
    with pytest.raises(ValueError, match="^window_threads: '2' needs window_partitions 2 or more"):
        sim.run(until="200us", window_threads=2)
    with pytest.raises(ValueError, match="^window_threads: 'x' is not a count of threads"):
        sim.run(until="200us", window_partitions=2, window_threads="x")
    with pytest.raises(ValueError, match="^window_threads: '3' is more than the 2 window_partitions"):
        sim.run(until="200us", progress=False, window_partitions=2, window_threads=3)
