#!/usr/bin/env python3
"""Plots a Sluice run directory (written by `sluice run --out DIR`) into DIR/*.png.

queue_depth.png      the deepest switch egress queues over time
link_throughput.png  the busiest link directions over time
flow_throughput.png  the long-lived flows (and the aggregate of finite flows) over time
congestion_tree.png  which MAC ports were paused by PFC (InfiniBand: starved for credit), when: the
                     congestion tree
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

TOP = 6  # lines per plot: more is unreadable


def top_columns(frame, n=TOP, by="max"):
    """The n columns with the largest peak (by="max") or average (by="mean"), ignoring all-zero ones."""
    values = frame.drop(columns="time_us")
    score = (values.max() if by == "max" else values.mean()).sort_values(ascending=False)
    return [c for c in score.index[:n] if score[c] > 0]


def plot(frame, columns, ylabel, title, path, scale=1.0):
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for c in columns:
        ax.plot(frame["time_us"] / 1e3, frame[c] * scale, label=c, linewidth=1.2)
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


def main(out_dir):
    out = Path(out_dir)
    summary = json.loads((out / "summary.json").read_text())
    name = summary["scenario"]

    queues = pd.read_csv(out / "queue_depth.csv")
    plot(queues, top_columns(queues), "queue depth (KB)", f"{name}: deepest egress queues",
         out / "queue_depth.png", scale=1e-3)

    links = pd.read_csv(out / "link_throughput.csv")
    plot(links, top_columns(links, by="mean"), "throughput (Gb/s)", f"{name}: busiest links (by mean)",
         out / "link_throughput.png")

    flows = pd.read_csv(out / "flow_throughput.csv")
    kinds = {f["name"]: f["kind"] for f in summary["flows"]}
    long_lived = [c for c in flows.columns[1:] if kinds.get(c) != "finite"][:TOP]
    finite = [c for c in flows.columns[1:] if kinds.get(c) == "finite"]
    if finite:
        flows["all finite flows"] = flows[finite].sum(axis=1)
        long_lived.append("all finite flows")
    plot(flows, long_lived, "delivered (Gb/s)", f"{name}: flow throughput", out / "flow_throughput.png")
    # An InfiniBand run has no PFC: its tree is the ports starved for credit.
    credit = out / "credit_blocked_fraction.csv"
    if credit.exists():
        tree, what, cause = pd.read_csv(credit), "starved", "credit-starved (InfiniBand)"
    else:
        tree, what, cause = pd.read_csv(out / "paused_fraction.csv"), "paused", "paused (PFC)"
    plot_pauses(tree, f"{name}: share of each sample period {cause}", out / "congestion_tree.png", what)
    print(f"plots written to {out}/: queue_depth.png, link_throughput.png, flow_throughput.png, "
          f"congestion_tree.png ({what})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: plot_run.py RUN_DIR")
    main(sys.argv[1])
