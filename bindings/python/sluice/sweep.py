"""Parameter sweeps: a grid of overrides (crossed with paired lists, `zip`) x seeds, run in
parallel, returned as one tidy DataFrame; optionally each run appended to a results store. The
scenario may be a function of the sweep's values (topology size, sender count, link speed).

Locally, points run on `workers` threads, each waiting on its own simulation process (the
simulation runs in a forked child; the thread only waits). With a Dask distributed cluster
(`client` = a distributed.Client or a scheduler address), points run as tasks on its workers.
A point that fails becomes a row with its parameters and the error; the others are kept.
"""

import concurrent.futures
import inspect
import itertools
import os
import sys
import time

import pandas as pd

from . import _child
from .simulation import ScenarioText, Simulation

# Grid keys that are run options rather than parameter patterns.
RUN_KEYS = ("until", "cc", "sample_period", "profile")

DEFAULT_METRICS = (
    "totals.drops",
    "totals.lossless_drops",
    "totals.pause_frames",
    "totals.flows_completed",
    "totals.mean_fct_ns",
    "totals.p99_fct_ns",
    "congestion_tree.max_ports_paused",
    "congestion_tree.paused_port_time_ns",
)


def _metric(result, name):
    """A dotted path into the summary ('totals.drops'), else a counter (0 when absent: the
    summary lists non-zero counters only)."""
    head, _, rest = name.partition(".")
    if head in result.summary and rest:
        node = result.summary
        for part in name.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node
    return result.counters.get(name, 0.0)


def _column(name):
    return name[len("totals."):] if name.startswith("totals.") else name


def scenario_keys(make, keys):
    """The sweep keys a scenario-making function takes: its named parameters, and with
    **kwargs every key that is a Python name and not a run option."""
    parameters = inspect.signature(make).parameters.values()
    named = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if any(p.kind == p.VAR_KEYWORD for p in parameters):
        named += [k for k in keys if k.isidentifier() and k not in RUN_KEYS and k not in named]
    return [k for k in named if k in keys]


def _made_scenario(make, values):
    made = make(**values)
    if isinstance(made, dict):
        return made
    if isinstance(made, str):
        return ScenarioText(made)
    raise ValueError(f"scenario: {getattr(make, '__name__', 'the function')}({', '.join(values)}) returned "
                     f"{type(made).__name__}, not a scenario dict or YAML text")


def run_point(scenario, point, seed, metrics, base_dir=None, set=None, run_options=None, store=None):  # noqa: A002
    """One grid point: a row of parameters, seed, metrics and error (None if it ran).
    scenario: a path, a dict, or a function of some of the point's keys returning a dict or YAML
    text. run_options: until, cc, sample_period, profile for every point (the point's own win).
    store: {"path", "series"}: the run is appended to that results store (row's run_id)."""
    row = dict(point)
    row["seed"] = seed
    row["error"] = None
    try:
        run_opts = dict(run_options or {})
        run_opts.update({k: v for k, v in point.items() if k in RUN_KEYS})
        made = scenario_keys(scenario, point) if callable(scenario) else []
        if callable(scenario):
            scenario = _made_scenario(scenario, {k: point[k] for k in made})
        overrides = list((set or {}).items()) + [(k, v) for k, v in point.items() if k not in RUN_KEYS and k not in made]
        sim = Simulation(scenario, seed=seed, set=overrides, cc=run_opts.get("cc"),
                         sample_period=run_opts.get("sample_period"), base_dir=base_dir, profile=run_opts.get("profile"))
        kept = {"store": store["path"], "store_series": store["series"], "store_tags": point} if store else {}
        result = sim.run(until=run_opts.get("until"), progress=False, **kept)
        if store:
            row["run_id"] = result.store_id
        if callable(metrics):
            row.update(metrics(result))
        else:
            for m in metrics:
                row[_column(m)] = _metric(result, m)
        row["interrupted"] = result.interrupted
        row["wall_s"] = result.wall_s
    except Exception as e:  # noqa: BLE001 - a failing point is a row, not the end of the sweep
        row["error"] = f"{type(e).__name__}: {e}"
    return row


def _points(grid, paired, seeds):
    """Every combination of the grid's values, each with every tuple of the paired lists (the
    i-th values of each together), each for every seed."""
    keys, pkeys = list(grid), list(paired)
    lists = {k: _as_list(paired[k]) for k in pkeys}
    if len({len(v) for v in lists.values()}) > 1:
        raise ValueError("zip: paired lists must have the same length ("
                         + ", ".join(f"{k}: {len(v)}" for k, v in lists.items()) + ")")
    both = [k for k in pkeys if k in grid]
    if both:
        raise ValueError(f"zip: '{both[0]}' is in grid too (a key is either crossed or paired)")
    pairs = list(zip(*lists.values())) if pkeys else [()]
    for values in itertools.product(*(_as_list(grid[k]) for k in keys)):
        for pair in pairs:
            for seed in seeds:
                yield {**dict(zip(keys, values)), **dict(zip(pkeys, pair))}, seed


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple, range)) else [v]


class _Progress:
    """Points done, failed, wall time and ETA on stderr: from the first second on, at most
    twice a second, and once at the end."""

    def __init__(self, total, show):
        self.total, self.show, self.done, self.failed = total, show, 0, 0
        self.start = self.last = time.perf_counter()
        self.shown = False

    def tick(self, row):
        self.done += 1
        self.failed += row.get("error") is not None
        now = time.perf_counter()
        if not self.show or now - self.start < 1 or (now - self.last < 0.5 and self.done < self.total):
            return
        self.last, self.shown = now, True
        wall = now - self.start
        eta = wall * (self.total - self.done) / self.done
        print(f"\rsweep: {self.done}/{self.total} points ({self.failed} failed), {wall:.1f} s wall, ETA {eta:.0f} s   ",
              end="", file=sys.stderr, flush=True)

    def end(self):
        if self.shown:
            print(file=sys.stderr, flush=True)


def sweep(scenario, grid=None, seeds=(1,), metrics=DEFAULT_METRICS, set=None, until=None, cc=None,  # noqa: A002
          sample_period=None, base_dir=None, workers=None, client=None, progress=True, zip=None,  # noqa: A002
          store=None, store_series=False):
    """Runs every combination of `grid` (each with every tuple of `zip`) for every seed; one row
    per (point, seed).

    scenario: a file's path, a dict, or a function of sweep keys (its parameter names) that
    returns a scenario dict or YAML text: the topology size, sender count, link speed, ...
    grid: {parameter pattern, run option (until, cc, sample_period, profile) or the scenario
    function's parameter: value or list of values}, every combination.
    zip: the same, but lists of one length varied together (the i-th values in one point),
    crossed with the grid.
    store: a results store (SQLite file) every run is appended to, with the point as its tags;
    the rows get its run_id. store_series: keep each run's CSV series there too.
    metrics: summary paths ('totals.drops') or counter names, one column each (the 'totals.'
    prefix is dropped from column names); or a function result -> dict of columns.
    set, until, cc, sample_period: common to every point. workers: local parallel runs (default: CPU count).
    client: a distributed.Client, or a scheduler address ('tcp://host:8786'); scenario files
    must then exist at the same absolute path on the workers.
    The rows come back in grid order, with an `error` column (None where the point ran).
    Ctrl-C stops the runs in progress cleanly and returns the rows measured so far
    (df.attrs['interrupted'] is True).
    """
    grid, paired = dict(grid or {}), dict(zip or {})
    if callable(scenario):  # every parameter without a default must come from the sweep
        made = scenario_keys(scenario, list(grid) + list(paired))
        for p in inspect.signature(scenario).parameters.values():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty and p.name not in made:
                raise ValueError(f"scenario: {getattr(scenario, '__name__', 'the function')}'s parameter "
                                 f"'{p.name}' is in neither grid nor zip")
    elif not isinstance(scenario, (dict, ScenarioText)):  # resolved here: a worker's current folder is not ours
        scenario = os.path.abspath(os.fspath(scenario))
    tasks = list(_points(grid, paired, seeds))
    common = {k: v for k, v in (("until", until), ("cc", cc), ("sample_period", sample_period)) if v is not None}
    kept = {"path": os.path.abspath(os.fspath(store)), "series": bool(store_series)} if store is not None else None
    shared = (metrics, base_dir, set, common, kept)
    meter = _Progress(len(tasks), progress)
    rows = [None] * len(tasks)
    interrupted = False
    try:
        if client is not None:
            interrupted = _on_dask(client, scenario, tasks, shared, rows, meter)
        else:
            interrupted = _locally(workers, scenario, tasks, shared, rows, meter)
    finally:
        meter.end()
    columns = list(grid) + list(paired) + ["seed"]
    df = pd.DataFrame([r for r in rows if r is not None])
    if not df.empty:
        df = df[columns + [c for c in df.columns if c not in columns]]
    df.attrs["interrupted"] = interrupted
    return df


def _locally(workers, scenario, tasks, shared, rows, meter):
    workers = workers or os.cpu_count() or 1
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
    futures = {pool.submit(run_point, scenario, p, s, *shared): i for i, (p, s) in enumerate(tasks)}
    try:
        for f in concurrent.futures.as_completed(futures):
            rows[futures[f]] = f.result()
            meter.tick(rows[futures[f]])
    except KeyboardInterrupt:
        for f in futures:
            f.cancel()
        _child.interrupt_all()  # the running points stop cleanly and report what they measured
        pool.shutdown(wait=True)
        for f, i in futures.items():
            if f.done() and not f.cancelled():
                rows[i] = f.result()
        return True
    pool.shutdown(wait=True)
    return False


def _on_dask(client, scenario, tasks, shared, rows, meter):
    import distributed

    if isinstance(client, str):  # an address: our own client, closed when the sweep ends
        with distributed.Client(client) as own:
            return _on_dask(own, scenario, tasks, shared, rows, meter)
    n = len(tasks)
    futures = client.map(run_point, [scenario] * n, [p for p, _ in tasks], [s for _, s in tasks],
                         *([x] * n for x in shared), pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    try:
        for f in distributed.as_completed(futures):
            i = index[f.key]
            try:
                rows[i] = f.result()
            except Exception as e:  # noqa: BLE001 - a worker lost: the point is a row with its error
                point, seed = tasks[i]
                rows[i] = dict(point, seed=seed, error=f"{type(e).__name__}: {e}")
            meter.tick(rows[i])
    except KeyboardInterrupt:
        client.cancel(futures)
        return True
    return False

