#!/usr/bin/env python3
"""Plots a Sluice run directory (written by `sluice run --out DIR`) into DIR/*.png, or a run of a
results store (`sluice run --store FILE --store-series`: plot_run.py FILE --run ID [--out DIR]).

queue_depth.png      the deepest switch egress queues over time
link_throughput.png  the link directions chosen by --links over time, the bottleneck (the direction
                     most utilized over the run) marked
flow_throughput.png  the long-lived flows (and the aggregate of finite flows) over time
congestion_tree.png  which MAC ports were paused by PFC (InfiniBand: starved for credit), when: the
                     congestion tree

The plots are drawn by bindings/python/sluice/run_plots.py, which the HTML report
(`sluice run --report`) shares.
"""
import argparse
import importlib.util
import io
import json
import sys
from pathlib import Path

import pandas as pd

PACKAGE = Path(__file__).resolve().parent.parent / "bindings/python/sluice"


def load(name):
    """A module of the sluice package, loaded by path: this script needs no native module."""
    spec = importlib.util.spec_from_file_location(f"sluice_{name}", PACKAGE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run_plots = load("run_plots")


def run_folder(path):
    """summary.json and the CSV series (a name -> DataFrame, or None if absent) of a run folder."""
    def series(name):
        csv = path / f"{name}.csv"
        return pd.read_csv(csv) if csv.exists() else None
    return json.loads((path / "summary.json").read_text()), series


def stored_run(path, run_id):
    """A run of a results store: its summary and series, through sluice.store (loaded by path:
    this script needs no native module)."""
    store_module = load("store")
    try:
        store = store_module.open(path)
        if run_id is None:  # the latest
            run_id = int(store.runs()["id"].max())
        summary = store.summary(run_id)
        names = store.series_names(run_id)
    except (ValueError, KeyError) as e:
        sys.exit(f"plot_run.py: {e}")
    if not names:
        sys.exit(f"plot_run.py: run {run_id} of {path} has no series (store it with --store-series)")

    def series(name):
        return pd.read_csv(io.StringIO(store.series_csv(run_id, name))) if name in names else None
    return run_id, summary, series


def main(source, links_spec="max", run_id=None, out_dir=None):
    source = Path(source)
    if source.is_dir():
        summary, series = run_folder(source)
        out = Path(out_dir) if out_dir else source
    else:
        run_id, summary, series = stored_run(source, run_id)
        out = Path(out_dir) if out_dir else source.with_name(f"{source.stem}-run{run_id}")
    try:  # a bad --links fails before any plot
        links, chosen, bottleneck = run_plots.link_plot(summary, series, links_spec)
    except run_plots.PlotError as e:
        sys.exit(f"plot_run.py: {e}")
    out.mkdir(parents=True, exist_ok=True)
    run_plots.save(run_plots.queue_plot(summary, series), out / "queue_depth.png")
    run_plots.save(links, out / "link_throughput.png")
    run_plots.save(run_plots.flow_plot(summary, series), out / "flow_throughput.png")
    # An InfiniBand run has no PFC: its tree is the ports starved for credit.
    tree, what, ports = run_plots.hold_plot(summary, series)
    run_plots.save(tree, out / "congestion_tree.png")
    print(f"plots written to {out}/: queue_depth.png, link_throughput.png, flow_throughput.png, "
          f"congestion_tree.png ({what}: {ports} ports)")
    print(f"links ({links_spec}): {', '.join(chosen)}; bottleneck: {bottleneck[0]} ({bottleneck[1]})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Plots a Sluice run directory into DIR/*.png, or a run of a "
                                     "results store.")
    parser.add_argument("run", help="a directory written by `sluice run --out DIR`, or a results store "
                        "(`sluice run --store FILE --store-series`)")
    parser.add_argument("--run", dest="run_id", type=int,
                        help="with a results store: the run's id (default: the latest)")
    parser.add_argument("--out", help="where the plots go (default: the run directory; for a stored run, "
                        "FILE-runID/ beside the store)")
    parser.add_argument("--links", default="max",
                        help="which link directions to draw: the busiest by max (default), p99 or mean, "
                        "or comma-separated names from link_throughput.csv (sw0->h1,h1->sw0)")
    arguments = parser.parse_args()
    if arguments.run_id is not None and Path(arguments.run).is_dir():
        sys.exit("plot_run.py: --run: applies to a results store, not a run directory")
    main(arguments.run, arguments.links, arguments.run_id, arguments.out)
