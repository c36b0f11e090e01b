#!/usr/bin/env python3
"""Plots a Sluice run directory (written by `sluice run --out DIR`) into DIR/*.png, or a run of a
results store (`sluice run --store FILE --store-series`: plot_run.py FILE --run ID [--out DIR]).

queue_depth.png      the deepest switch egress queues over time
link_throughput.png  the link directions chosen by --links over time, the bottleneck (the direction
                     most utilized over the run) marked
flow_throughput.png  the long-lived flows (and the aggregate of finite flows) over time
congestion_tree.png  which MAC ports were paused by PFC (InfiniBand: starved for credit), when: the
                     congestion tree
"""
import argparse
import importlib.util
import io
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

TOP = 6  # lines per plot: more is unreadable


RANKINGS = {"max": lambda v: v.max(), "p99": lambda v: v.quantile(0.99), "mean": lambda v: v.mean()}


def top_columns(frame, n=TOP, by="max"):
    """The n columns with the largest peak, 99th percentile or average, ignoring all-zero ones."""
    score = RANKINGS[by](frame.drop(columns="time_us")).sort_values(ascending=False)
    return [c for c in score.index[:n] if score[c] > 0]


def chosen_links(frame, spec):
    """--links: a ranking (max, p99, mean) or comma-separated direction names (sw0->h1,h1->sw0)."""
    if spec in RANKINGS:
        return top_columns(frame, by=spec), f"busiest links (by {spec})"
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in frame.columns[1:]]
    if not names or unknown:
        sys.exit(f"plot_run.py: --links: no link direction '{','.join(unknown) or spec}' "
                 f"(max, p99, mean or names from link_throughput.csv, e.g. {frame.columns[1]})")
    return names, "chosen links"


def bottleneck_link(summary, frame):
    """The direction with the highest utilization over the run (summary links[]), else the highest mean."""
    used = [(link["utilization"], link["name"]) for link in summary.get("links", [])
            if "utilization" in link and link.get("name") in frame.columns]
    if used:
        utilization, name = max(used)
        return name, f"{utilization:.0%} utilized"
    means = frame.drop(columns="time_us").mean()
    return means.idxmax(), f"mean {means.max():.3g} Gb/s"


def plot(frame, columns, ylabel, title, path, scale=1.0, marked=None):
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for c in columns:
        if marked and c == marked[0]:  # drawn last, on top, so that no other line hides it
            continue
        ax.plot(frame["time_us"] / 1e3, frame[c] * scale, label=c, linewidth=1.2)
    if marked:
        name, why = marked
        ax.plot(frame["time_us"] / 1e3, frame[name] * scale, label=f"{name}: bottleneck, {why}",
                color="black", linewidth=2.4, linestyle="--")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if columns:
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_pauses(frame, title, path, what="paused"):
    ever = [c for c in frame.columns[1:] if frame[c].max() > 0]
    fig, ax = plt.subplots(figsize=(9, 1.5 + 0.22 * max(len(ever), 1)))
    if ever:
        t = frame["time_us"] / 1e3
        image = ax.imshow(frame[ever].T.values, aspect="auto", interpolation="nearest", cmap="Reds",
                          vmin=0, vmax=1, extent=[t.iloc[0], t.iloc[-1], len(ever) - 0.5, -0.5])
        ax.set_yticks(range(len(ever)))
        ax.set_yticklabels(ever, fontsize=7)
        fig.colorbar(image, ax=ax, label=f"{what} share")
    else:
        ax.text(0.5, 0.5, f"no port was {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("time (ms)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_folder(path):
    """summary.json and the CSV series (a name -> DataFrame, or None if absent) of a run folder."""
    def series(name):
        csv = path / f"{name}.csv"
        return pd.read_csv(csv) if csv.exists() else None
    return json.loads((path / "summary.json").read_text()), series


def stored_run(path, run_id):
    """A run of a results store: its summary and series, through sluice.store (loaded by path:
    this script needs no native module)."""
    spec = importlib.util.spec_from_file_location(
        "sluice_store", Path(__file__).resolve().parent.parent / "bindings/python/sluice/store.py")
    store_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(store_module)
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
    out.mkdir(parents=True, exist_ok=True)
    name = summary["scenario"]

    links = series("link_throughput")
    chosen, what_links = chosen_links(links, links_spec)  # a bad --links fails before any plot

    queues = series("queue_depth")
    plot(queues, top_columns(queues), "queue depth (KB)", f"{name}: deepest egress queues",
         out / "queue_depth.png", scale=1e-3)

    bottleneck = bottleneck_link(summary, links)
    plot(links, chosen + [c for c in [bottleneck[0]] if c not in chosen], "throughput (Gb/s)",
         f"{name}: {what_links}", out / "link_throughput.png", marked=bottleneck)

    flows = series("flow_throughput")
    kinds = {f["name"]: f["kind"] for f in summary["flows"]}
    long_lived = [c for c in flows.columns[1:] if kinds.get(c) != "finite"][:TOP]
    finite = [c for c in flows.columns[1:] if kinds.get(c) == "finite"]
    if finite:
        flows["all finite flows"] = flows[finite].sum(axis=1)
        long_lived.append("all finite flows")
    plot(flows, long_lived, "delivered (Gb/s)", f"{name}: flow throughput", out / "flow_throughput.png")
    # An InfiniBand run has no PFC: its tree is the ports starved for credit.
    credit = series("credit_blocked_fraction")
    if credit is not None:
        tree, what, cause = credit, "starved", "credit-starved (InfiniBand)"
    else:
        tree, what, cause = series("paused_fraction"), "paused", "paused (PFC)"
    plot_pauses(tree, f"{name}: share of each sample period {cause}", out / "congestion_tree.png", what)
    ports = sum(1 for c in tree.columns[1:] if tree[c].max() > 0)
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
