"""Simulation, Result and the listings (params, stats, fabric): the user-facing API.

Each run, and each listing, elaborates a fabric in a forked child (see _child.py); the native
module _sluice does the work with the same code as the `sluice` command line.
"""

import json
import os
import time

import pandas as pd

from . import _child
from .store import SERIES, SERIES_NAMES  # noqa: F401 - result.timeseries(name): the series' short names


def _native():
    # The built module (build/python). Imported in the parent once, not in every child: loading
    # it (and SystemC) is half of a short run's overhead. Importing does not elaborate.
    try:
        import _sluice
    except ImportError as e:
        raise ImportError(f"sluice: the native module _sluice is not importable ({e}): build it with tools/setup.sh, "
                          "which also puts build/python on .venv's path") from e
    return _sluice


_native()


def _time_text(value, key):
    """'2ms' stays as it is; a number is seconds."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{round(value * 1e12)}ps"
    raise ValueError(f"{key}: '{value}' is not a time (e.g. '2ms', or seconds as a number)")


class ScenarioText(str):
    """A scenario's YAML text, where a path would be read as a file's: Simulation(ScenarioText(text))."""


def scenario_spec(scenario, base_dir=None):
    """What the native module loads: a YAML file (path), a scenario given as a dict, or its
    YAML text (ScenarioText).

    A dict is the parsed form of a scenario file (same keys); it is passed on as JSON, which
    YAML reads. Relative paths inside it (CDF files) resolve against base_dir (default: the
    current folder); a file's resolve against the file's folder.
    """
    if isinstance(scenario, dict):
        return {"text": json.dumps(scenario), "base_dir": os.path.abspath(base_dir or os.getcwd())}
    if isinstance(scenario, ScenarioText):
        return {"text": str(scenario), "base_dir": os.path.abspath(base_dir or os.getcwd())}
    if isinstance(scenario, (str, os.PathLike)):
        return {"path": os.path.abspath(os.fspath(scenario))}
    raise ValueError(f"scenario: '{scenario!r}' is neither a file path nor a dict")


def _overrides(set_):
    """--set overrides, in order: a dict {pattern: value} or (pattern, value) pairs."""
    if set_ is None:
        return []
    items = set_.items() if isinstance(set_, dict) else set_
    return [(str(k), str(v)) for k, v in items]


def _run_spec(scenario, base_dir, set_, seed, cc, sample_period, until, profile=None, allow_inert=False):
    spec = scenario_spec(scenario, base_dir)
    spec["sets"] = _overrides(set_)
    spec["allow_inert"] = bool(allow_inert)
    if seed is not None:
        spec["seed"] = str(seed)
    if cc is not None:
        spec["cc"] = str(cc)
    if profile is not None:
        spec["profile"] = str(profile)
    if sample_period is not None:
        spec["sample_period"] = _time_text(sample_period, "sample_period")
    if until is not None:
        spec["until"] = _time_text(until, "until")
    return spec


class Simulation:
    """A scenario with its overrides and the Python callbacks to call at simulated times.

    Nothing is elaborated here; each run() elaborates and runs in a child process, so the same
    Simulation can run again (same seed, same results) and many can run in one session.
    """

    def __init__(self, scenario, seed=None, set=None, cc=None, sample_period=None, base_dir=None,  # noqa: A002
                 profile=None, allow_inert=False):
        """profile: hardware profile of defaults ('default', '40g', '100g'; docs/models/profiles.md).
        allow_inert: a setting whose every match has no effect warns (stderr, result warnings)
        instead of failing."""
        self._spec_args = dict(scenario=scenario, base_dir=base_dir, set_=set, seed=seed, cc=cc, sample_period=sample_period,
                               profile=profile, allow_inert=allow_inert)
        scenario_spec(scenario, base_dir)  # a bad argument fails here, not in the child
        self._callbacks = []  # (name, at, every, fn)

    def at(self, time, fn, name=None):
        """Calls fn(live) once at simulated `time` ('2ms'); its return value, if not None, is
        kept as result.probe(name). Returns the name (default 'at<i>')."""
        return self._add(name or f"at{len(self._callbacks)}", _time_text(time, "at"), "", fn)

    def every(self, period, fn, name=None):
        """Calls fn(live) at period, 2 x period, ... up to and including the end of the run;
        non-None return values become result.probe(name) (default 'every<i>')."""
        return self._add(name or f"every{len(self._callbacks)}", "", _time_text(period, "every"), fn)

    def _add(self, name, at, every, fn):
        if not callable(fn):
            raise ValueError(f"{name}: '{fn!r}' is not callable")
        if any(name == c[0] for c in self._callbacks):
            raise ValueError(f"{name}: a callback of that name exists")
        self._callbacks.append((name, at, every, fn))
        return name

    def run(self, until=None, progress=True, pcap=None, capture=None, capture_kinds=None, capture_window=None,
            trace_frames=None, vcd=None, trace=None, trace_window=None, store=None, store_series=False, store_tags=None,
            report=None, partitions=None, partition_method="auto", window_partitions=None, window_threads=None):
        """Elaborates and runs (in a child process); returns a Result.

        partitions: split the run over that many processes (mpirun -np P of the CLI with
        --partitions P, docs/parallel.md); the Result is the single run's. Without callbacks,
        captures, traces, waveforms or a store (those need one process).
        window_partitions: one process runs the fabric in that many partitions, window by window
        (docs/parallel.md, faster for large fabrics); the Result is the whole run's. Not with
        partitions, captures, frame traces or waveforms (written in event order).
        window_threads: with window_partitions, that many threads drain each window's partitions
        at once (partition p on thread p % window_threads); the Result is still the whole run's.
        partition_method: how either splits the fabric (auto, metis, pod, blocks).

        progress: show simulated time, wall time and ETA on stderr for runs longer than a
        second. Ctrl-C stops the run cleanly: the Result holds what was measured up to then
        (result.interrupted is True).
        pcap: a folder for packet captures (pcapng, one file per port, docs/observability.md) of
        the ports `capture` names (a name or glob, or a list of them), optionally only the frame
        kinds `capture_kinds` ('data,pfc' or a list) within `capture_window` ('1ms:2ms').
        trace_frames: a filter ('flow=3', 'kind=cnm', 'id=N', joined by ','): result.frame_trace
        then holds every event of the frames it keeps (frame_trace.csv's rows).
        vcd: a VCD file of the signals `trace` names (a glob or a list), within `trace_window`.
        store: a results store (SQLite file, created if missing) the run is appended to, like
        --store; store_series also keeps its CSV series; store_tags, a dict kept with the run
        (JSON). result.store_id is its id there (sluice.store.open(FILE)).
        report: an HTML file written with result.report(FILE): one self-contained page of the run.
        """
        spec = _run_spec(until=until, **self._spec_args)
        if window_partitions is not None:
            if partitions is not None:
                raise ValueError("window_partitions: not with partitions (windows are one process's; docs/parallel.md)")
            if isinstance(window_partitions, bool) or not isinstance(window_partitions, int):
                raise ValueError(f"window_partitions: '{window_partitions}' is not a count of partitions")
            spec["window_partitions"] = str(window_partitions)
            if window_threads is not None:
                if isinstance(window_threads, bool) or not isinstance(window_threads, int):
                    raise ValueError(f"window_threads: '{window_threads}' is not a count of threads")
                spec["window_threads"] = str(window_threads)
            if partition_method != "auto":
                spec["partition_method"] = str(partition_method)
        elif window_threads is not None:
            raise ValueError(f"window_threads: '{window_threads}' needs window_partitions 2 or more")
        elif partition_method != "auto" and partitions in (None, 1):
            raise ValueError(f"partition_method: '{partition_method}' needs partitions of 2 or more")
        if partitions is not None and partitions != 1:
            return self._run_partitioned(spec, partitions, partition_method, dict(
                pcap=pcap, trace_frames=trace_frames, vcd=vcd, store=store, report=report))
        if pcap is not None:
            spec["pcap"] = os.fspath(pcap)
        if capture is not None:
            spec["capture"] = [capture] if isinstance(capture, str) else [str(c) for c in capture]
        if capture_kinds is not None:
            spec["capture_kinds"] = capture_kinds if isinstance(capture_kinds, str) else ",".join(capture_kinds)
        if capture_window is not None:
            spec["capture_window"] = str(capture_window)
        if trace_frames is not None:
            spec["trace_frames"] = str(trace_frames)
        if vcd is not None:
            spec["vcd"] = os.fspath(vcd)
        if trace is not None:
            spec["trace"] = [trace] if isinstance(trace, str) else [str(t) for t in trace]
        if trace_window is not None:
            spec["trace_window"] = str(trace_window)
        if store is not None:
            spec["store"] = os.fspath(store)
        spec["store_series"] = bool(store_series)
        if store_tags is not None:
            spec["store_tags"] = json.dumps(store_tags, default=str)
        callbacks = self._callbacks
        start = time.perf_counter()
        raw = _child.call_in_child(_run_native, spec, callbacks, progress)
        result = Result(raw, [c[0] for c in callbacks], time.perf_counter() - start)
        if report is not None:
            result.report(report)
        return result


    def _run_partitioned(self, spec, partitions, method, one_process_only):
        if not isinstance(partitions, int) or isinstance(partitions, bool) or partitions < 1:
            raise ValueError(f"partitions: '{partitions}' is not a count of processes (1 or more)")
        for key, value in one_process_only.items():
            if value is not None:
                raise ValueError(f"{key}: not with partitions (a run over several processes; docs/parallel.md)")
        if self._callbacks:
            raise ValueError(f"partitions: the callbacks ({', '.join(c[0] for c in self._callbacks)}) need one process")
        from .partitioned import run_partitioned

        start = time.perf_counter()
        raw = run_partitioned(spec, partitions, str(method))
        return Result(raw, [], time.perf_counter() - start)


def _run_native(spec, callbacks, progress):
    native = _native()
    natives = [native.Callback(at=at, every=every, fn=fn) for _, at, every, fn in callbacks]
    return native.run(spec, natives, progress)


class Result:
    """One run's results: the summary (as summary.json), the time series and the probes."""

    def __init__(self, raw, probe_names, wall_s):
        self.summary = json.loads(raw["summary"])
        self.interrupted = raw["interrupted"]
        self.wall_s = wall_s  # the whole run() as the caller saw it, fork and transfer included
        self._series = raw["series"]
        self._probes = dict(zip(probe_names, raw["returns"]))
        self._frame_trace = raw.get("frame_trace")
        self.store_id = raw.get("store_id")  # the run's id in the results store, with run(store=...)

    def timeseries(self, name):
        """A CSV series of the report as a DataFrame: index time_us, one column per
        port/priority, link direction or flow. name: queue, link (or throughput), flow,
        paused (or pause), rate, or a file's name (queue_depth, ...)."""
        key = SERIES.get(name, name)
        if key not in SERIES_NAMES:
            raise ValueError(f"timeseries: '{name}' is not a series ({', '.join(sorted(SERIES))} or {', '.join(SERIES_NAMES)})")
        s = self._series[key]
        index = pd.Index(s["time_us"], name="time_us")
        return pd.DataFrame(s["values"], index=index, columns=list(s["columns"]))

    def probe(self, name):
        """The non-None return values of a callback, as a Series indexed by time_us."""
        if name not in self._probes:
            raise ValueError(f"probe: '{name}' is not a callback of this run ({', '.join(self._probes) or 'none'})")
        rows = self._probes[name]
        return pd.Series([v for _, v in rows], index=pd.Index([t for t, _ in rows], name="time_us"), name=name)

    def report(self, path):
        """Writes one self-contained HTML page of the run (what `sluice run --report FILE` writes):
        the summary tables, the standard plots as embedded PNGs, the provenance and the warnings.
        Returns its path. Needs jinja2 and matplotlib."""
        from . import run_report

        def series(name):
            s = self._series.get(name)
            if s is None or not len(s["columns"]):  # as a run folder: no file for a series without columns
                return None
            frame = pd.DataFrame(s["values"], columns=list(s["columns"]))
            frame.insert(0, "time_us", s["time_us"])
            return frame
        return run_report.write_report(self.summary, series, path)

    @property
    def frame_trace(self):
        """The frame trace of run(trace_frames=...) as a DataFrame (frame_trace.csv's columns but
        `node`); None without one."""
        if self._frame_trace is None:
            return None
        return pd.DataFrame(self._frame_trace)

    @property
    def probes(self):
        return {name: self.probe(name) for name in self._probes}

    @property
    def flows(self):
        """Per-flow results (summary.json's flows[]): FCT, throughput, size, ..., by name."""
        return pd.DataFrame(self.summary["flows"]).set_index("name")

    @property
    def ports(self):
        return pd.DataFrame(self.summary["ports"])

    @property
    def links(self):
        return pd.DataFrame(self.summary["links"]).set_index("name")

    @property
    def totals(self):
        return self.summary["totals"]

    @property
    def provenance(self):
        """How the run was made (summary.json's provenance): scenario path and SHA-256, every
        override in order, cc, profile, seed, until, the build's version and git commit, host, date."""
        return self.summary["provenance"]

    @property
    def counters(self):
        """Every non-zero registered statistic at the end of the run, by name."""
        return self.summary["counters"]

    def __repr__(self):
        t = self.totals
        return (
            f"<sluice.Result {self.summary['scenario']!r} seed {self.summary['seed']}: {t['sim_time_ns'] / 1e3:g} us simulated, "
            f"drops {t['drops']}, PFC frames {t['pause_frames']}, flows completed {t['flows_completed']}/{t['flows']}"
            f"{', interrupted' if self.interrupted else ''}>"
        )


def params(scenario, match="*", set=None, cc=None, base_dir=None, profile=None, allow_inert=False):  # noqa: A002
    """The parameters of the scenario's fabric as a DataFrame: name, unit, default, value,
    range, change ("live": may change during a run, or "fixed"), description (what `sluice
    params` prints)."""
    spec = _run_spec(scenario, base_dir, set, None, cc, None, None, profile, allow_inert)
    rows = _child.call_in_child(lambda: _native().params(spec, match))
    return pd.DataFrame(rows, columns=["name", "unit", "default", "value", "range", "change", "description"])


def stats(scenario, match="*", base_dir=None):
    """The statistics the scenario's fabric registers: name, unit, description."""
    spec = scenario_spec(scenario, base_dir)
    rows = _child.call_in_child(lambda: _native().stats(spec, match))
    return pd.DataFrame(rows, columns=["name", "unit", "description"])


class Fabric:
    """The built fabric of a scenario: switches, nics, ports, links and flows as DataFrames."""

    def __init__(self, rows):
        self.switches = pd.DataFrame(rows["switches"])
        self.nics = list(rows["nics"])
        self.ports = pd.DataFrame(rows["ports"])
        self.links = pd.DataFrame(rows["links"])
        self.flows = pd.DataFrame(rows["flows"])

    def __repr__(self):
        return (
            f"<sluice.Fabric {len(self.switches)} switches, {len(self.nics)} NICs, {len(self.links)} links, "
            f"{len(self.flows)} flows>"
        )


def fabric(scenario, set=None, base_dir=None):  # noqa: A002
    """Elaborates the scenario (without running it) and describes what was built."""
    spec = _run_spec(scenario, base_dir, set, None, None, None, None)
    return Fabric(_child.call_in_child(lambda: _native().fabric(spec)))
