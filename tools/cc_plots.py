#!/usr/bin/env python3
"""Validation plots of the congestion-control models (docs/models/img/cc-*.png), from run outputs.

usage: tools/cc_plots.py [--sluice build/platforms/sluice] [--runs DIR] [--img docs/models/img]

Runs (into --runs, skipped if a run's summary.json is already there) and plots:
  qcn     dumbbell.yaml with --cc qcn, 10 ms          cc-qcn.png, and cc-qcn-phase.png: the Q/R plane
  ecm     dumbbell-ecm.yaml, 30 ms                    cc-ecm.png
  dcqcn   dumbbell-dcqcn.yaml, 80 ms                  cc-dcqcn.png
  timely  dumbbell-timely.yaml, 80 ms                 cc-timely.png
Each cc-<name>.png: each flow's rate limit (flow_rate.csv) and the bottleneck queue
(sw0.port4, class 3) over time. The Q/R plane: the bottleneck queue against the rate arriving at
it (the senders' links h*->sw0, summed), with Qeq and the capacity marked.
Run it under `flock /tmp/sluice-build.lock` on the shared machine (a few seconds).
"""
import argparse
import csv
import os
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--sluice", default="build/platforms/sluice")
ap.add_argument("--runs", default="out/cc-plots")
ap.add_argument("--img", default="docs/models/img")
a = ap.parse_args()

RUNS = {
    "qcn": ("scenarios/dumbbell.yaml", ["--cc", "qcn", "--until", "10ms", "--sample-period", "10us"], 40e9, 26624),
    "ecm": ("scenarios/dumbbell-ecm.yaml", ["--sample-period", "20us"], 40e9, 26624),
    "dcqcn": ("scenarios/dumbbell-dcqcn.yaml", ["--sample-period", "100us"], 40e9, None),
    "timely": ("scenarios/dumbbell-timely.yaml", ["--sample-period", "20us"], 10e9, None),
}


def rows(d, name):
    with open(os.path.join(d, name)) as f:
        return list(csv.DictReader(f))


def column(rs, c):
    return [float(r[c]) for r in rs]


os.makedirs(a.img, exist_ok=True)
for name, (scenario, args, capacity, qeq) in RUNS.items():
    d = os.path.join(a.runs, name)
    if not os.path.exists(os.path.join(d, "summary.json")):
        os.makedirs(d, exist_ok=True)
        subprocess.run([a.sluice, "run", scenario, "--seed", "1", "--out", d, "-q"] + args, check=True)
    rate = rows(d, "flow_rate.csv")
    queue = rows(d, "queue_depth.csv")
    t_rate = [v / 1000 for v in column(rate, "time_us")]
    t_q = [v / 1000 for v in column(queue, "time_us")]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 4.2), sharex=True, dpi=72)
    for c in rate[0]:
        if c == "time_us" or c.endswith(" target"):
            continue
        top.plot(t_rate, [v / 1e9 for v in column(rate, c)], lw=0.8, label=c)
    top.set_ylabel("rate limit (Gb/s)")
    top.legend(fontsize=7, ncol=4, loc="upper right")
    top.set_title(f"{name}: {os.path.basename(scenario)} (seed 1)", fontsize=9)
    bottom.plot(t_q, [v / 1e3 for v in column(queue, "sw0.port4.p3")], lw=0.8, color="k")
    if qeq:
        bottom.axhline(qeq / 1e3, ls="--", lw=0.8, color="tab:red", label="Qeq")
        bottom.legend(fontsize=7)
    bottom.set_ylabel("bottleneck queue (KB)")
    bottom.set_xlabel("time (ms)")
    fig.tight_layout()
    fig.savefig(os.path.join(a.img, f"cc-{name}.png"))
    plt.close(fig)
    if name == "qcn":
        links = rows(d, "link_throughput.csv")
        senders = [c for c in links[0] if c.startswith("h") and c.endswith("->sw0")]
        arriving = [sum(float(r[c]) for c in senders) for r in links]
        q = [v / 1e3 for v in column(queue, "sw0.port4.p3")]
        n = min(len(q), len(arriving))
        fig, ax = plt.subplots(figsize=(5, 4), dpi=72)
        sc = ax.scatter(q[:n], arriving[:n], c=[t for t in t_q[:n]], s=3, cmap="viridis")
        ax.plot(q[:n], arriving[:n], lw=0.3, color="grey")
        ax.axvline(qeq / 1e3, ls="--", lw=0.8, color="tab:red", label="Qeq")
        ax.axhline(capacity / 1e9, ls=":", lw=0.8, color="k", label="capacity")
        ax.set_xlabel("bottleneck queue Q (KB)")
        ax.set_ylabel("rate arriving R (Gb/s)")
        ax.set_title("QCN: Q/R phase plane, dumbbell (seed 1)", fontsize=9)
        ax.legend(fontsize=7)
        fig.colorbar(sc, ax=ax, label="time (ms)")
        fig.tight_layout()
        fig.savefig(os.path.join(a.img, "cc-qcn-phase.png"))
        plt.close(fig)
print("plots in", a.img)
