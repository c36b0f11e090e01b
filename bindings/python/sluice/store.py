"""Reads a results store: the SQLite file `sluice run --store FILE`, `Simulation.run(store=FILE)`
and `sluice.sweep(..., store=FILE)` append runs to (schema: docs/outputs.md#the-results-store).

    import sluice
    db = sluice.store.open("runs.sqlite")
    db.runs()            # DataFrame: one row per run: id, provenance, totals
    db.flows(3)          # run 3's flows, as Result.flows; .ports(3), .links(3), .counters(3)
    db.series(3, "queue")  # a CSV series, when the run was stored with its series

The one writer is the native code (platforms/results_store.cpp), for the CLI and Python alike.
This module needs only the standard library and pandas (tools/plot_run.py loads it by path,
without the native module).
"""

import io
import json
import os
import sqlite3

import pandas as pd

SCHEMA_VERSION = 3  # what this module reads (results_store::schema_version)

# Short names of the CSV series (Result.timeseries, Store.series) and their files' names.
SERIES = {
    "queue": "queue_depth",
    "link": "link_throughput",
    "throughput": "link_throughput",
    "flow": "flow_throughput",
    "paused": "paused_fraction",
    "pause": "paused_fraction",
    "rate": "flow_rate",
    "buffer": "buffer_occupancy",
    "credit": "credit_blocked_fraction",
}
SERIES_NAMES = ("queue_depth", "link_throughput", "flow_throughput", "paused_fraction", "flow_rate", "buffer_occupancy",
                "credit_blocked_fraction")

# Columns of runs that are the provenance object's members (with the run's seed).
PROVENANCE = ("scenario_path", "scenario_sha256", "overrides", "cc", "profile", "until", "sample_period", "allow_inert",
              "sluice_version", "git_commit", "git_dirty", "host", "date")


def open(path):  # noqa: A001 - sluice.store.open(FILE), as the docs write it
    """The results store at `path` (read-only). ValueError: not a file, not a Sluice store."""
    return Store(path)


class Store:
    """A results store, read-only. Run ids are runs.id (the CLI prints them; Result.store_id)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise ValueError(f"store: cannot open '{self.path}': no such file")
        uri = "file:" + os.path.abspath(self.path).replace("?", "%3f").replace("#", "%23") + "?mode=ro"
        try:
            self._db = sqlite3.connect(uri, uri=True)
            tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as e:
            raise ValueError(f"store: '{self.path}': {e}") from None
        if "schema_version" not in tables:
            raise ValueError(f"store: '{self.path}': not a Sluice results store")
        version = self._db.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise ValueError(f"store: '{self.path}': results store of schema version {version}; "
                             f"this Sluice reads version {SCHEMA_VERSION}")
        self._types = {}

    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        n = self._db.execute("SELECT count(*) FROM runs").fetchone()[0]
        return f"<sluice.store.Store {self.path!r}: {n} runs>"

    def runs(self):
        """One row per run, in id order: id, scenario, seed, interrupted, the provenance columns
        (overrides as a list), tags (a sweep's point, a dict, or None), the congestion tree
        (congestion_tree.max_ports_paused, ...) and every total (drops, mean_fct_ns, ...)."""
        runs = self._select("runs", "SELECT * FROM runs ORDER BY id")
        tree = pd.json_normalize(list(runs.pop("congestion_tree").map(lambda t: t or {}))).add_prefix("congestion_tree.")
        runs = runs.drop(columns=["deadlocks", "warnings"])
        by_run = {}  # totals by run: integers stay integers where every run has the total
        for run_id, name, value in self._db.execute("SELECT run_id, name, value FROM totals ORDER BY rowid"):
            by_run.setdefault(run_id, {})[name] = value
        runs = pd.concat([runs, tree.set_index(runs.index)], axis=1)
        if not by_run:
            return runs
        totals = pd.DataFrame.from_dict(by_run, orient="index").rename_axis("id").reset_index()
        return runs.merge(totals, on="id", how="left")

    def flows(self, run_id):
        """The run's flows (summary.json flows[]) by name, as Result.flows."""
        flows = self._rows("flows", run_id).set_index("name")
        # Only flows that heard ACKs have ack_frames in summary.json; without any, no column.
        if "ack_frames" in flows and flows.ack_frames.isna().all():
            flows = flows.drop(columns="ack_frames")
        return flows

    def ports(self, run_id):
        """The run's ports rows (summary.json ports[]), as Result.ports; the credit_* columns
        are None on a CEE fabric (summary.json has them on InfiniBand only)."""
        return self._rows("ports", run_id)

    def links(self, run_id):
        """The run's link directions (summary.json links[]) by name, as Result.links."""
        return self._rows("links", run_id).set_index("name")

    def totals(self, run_id):
        """summary.json's totals, as a dict."""
        return self._named("totals", run_id)

    def counters(self, run_id):
        """Every non-zero statistic at the end of the run, by name (summary.json counters)."""
        return self._named("counters", run_id)

    def series_names(self, run_id):
        """The CSV series stored with the run (empty unless it was stored with its series)."""
        self._check(run_id)
        return [r[0] for r in self._db.execute("SELECT name FROM series WHERE run_id = ? ORDER BY rowid", (run_id,))]

    def series_csv(self, run_id, name):
        """A stored series as its CSV file's text."""
        key = SERIES.get(name, name)
        self._check(run_id)
        row = self._db.execute("SELECT csv FROM series WHERE run_id = ? AND name = ?", (run_id, key)).fetchone()
        if row is None:
            stored = self.series_names(run_id)
            raise ValueError(f"store: run {run_id} has no series '{name}' "
                             + (f"({', '.join(stored)})" if stored else "(stored without its series: --store-series, "
                                                                        "store_series=True)"))
        return row[0]

    def series(self, run_id, name):
        """A stored series as Result.timeseries gives it: index time_us, one column per port,
        link direction or flow. name: a short name (queue, link, ...) or a file's name."""
        frame = pd.read_csv(io.StringIO(self.series_csv(run_id, name)))
        return frame.set_index("time_us").astype(float)  # as Result.timeseries: floats throughout

    def summary(self, run_id):
        """The run as summary.json holds it (what `sluice compare FILE:ID` reads)."""
        run = self._select("runs", "SELECT * FROM runs WHERE id = ?", (run_id,))
        if run.empty:
            self._check(run_id)
        row = run.iloc[0].to_dict()
        summary = {k: row[k] for k in ("scenario", "congestion_tree", "deadlocks", "warnings")}
        summary["seed"] = int(row["seed"])
        summary["provenance"] = {k: row[k] for k in PROVENANCE}
        summary["provenance"]["seed"] = summary["seed"]
        for table in ("flows", "ports", "links"):
            summary[table] = self._rows(table, run_id).to_dict("records")
        summary["totals"] = self.totals(run_id)
        summary["counters"] = self.counters(run_id)
        return summary

    # ---- helpers ---------------------------------------------------------------------------

    def _check(self, run_id):
        if self._db.execute("SELECT 1 FROM runs WHERE id = ?", (int(run_id),)).fetchone() is None:
            low, high = self._db.execute("SELECT min(id), max(id) FROM runs").fetchone()
            raise ValueError(f"store: '{self.path}' has no run {run_id} "
                             + ("(no runs)" if low is None else f"(ids {low} to {high})"))

    def _declared(self, table):
        """Column name -> declared type: BOOLEAN holds 0/1, JSON TEXT a JSON document."""
        if table not in self._types:
            self._types[table] = {r[1]: r[2] for r in self._db.execute(f"PRAGMA table_info({table})")}
        return self._types[table]

    def _select(self, table, sql, args=()):
        cursor = self._db.execute(sql, args)
        frame = pd.DataFrame(cursor.fetchall(), columns=[d[0] for d in cursor.description])
        for column, declared in self._declared(table).items():
            if column not in frame:
                continue
            if declared == "BOOLEAN":
                values = frame[column].map(lambda v: None if v is None or v != v else bool(v))
                frame[column] = values.astype(bool) if values.notna().all() else values
            elif declared == "JSON TEXT":
                frame[column] = frame[column].map(lambda v: None if v is None else json.loads(v))
        return frame

    def _rows(self, table, run_id):
        self._check(run_id)
        return self._select(table, f"SELECT * FROM {table} WHERE run_id = ? ORDER BY rowid",
                            (int(run_id),)).drop(columns="run_id")

    def _named(self, table, run_id):
        self._check(run_id)
        return dict(self._db.execute(f"SELECT name, value FROM {table} WHERE run_id = ? ORDER BY rowid", (int(run_id),)))
