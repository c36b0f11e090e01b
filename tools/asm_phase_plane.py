#!/usr/bin/env python3
"""ASM's figures (docs/models/img/asm-*.png), from run outputs.

usage: tools/asm_phase_plane.py [--sluice build/platforms/sluice] [--runs DIR] [--img docs/models/img]

Runs (into --runs, skipped if a run's summary.json is already there) and plots:
  asm-phase-plane.png  scenarios/dumbbell-asm.yaml (3 flows, 40 Gb/s, 10 ms): the Q/R plane, the
                       bottleneck queue (sw0.port3, class 3) against the aggregate rate (the
                       flows' rate limits, flow_rate.csv, summed), with the boundary line
                       sigma = Qoff + w S (1 - C/R) = 0 and the stable point (Qeq, C).
  asm-small-qeq.png    the same dumbbell with Qeq = 2 KiB under asm and under qcn (--set
                       sw0.port*.prio3.<cc>.qeq=2KiB, as AsmSystem.SmallQeq*: since the CPs read
                       the queue past the switch pipeline QCN keeps a 4 KiB Qeq's link full):
                       queue and bottleneck throughput over time.
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
ap.add_argument("--runs", default="out/asm-plots")
ap.add_argument("--img", default="docs/models/img")
a = ap.parse_args()

C, QEQ, W, S = 40e9, 26624, 4, 150000  # the scenario's capacity; asm's defaults (docs/models/asm.md)
QUEUE = "sw0.port3.p3"
SMALL_QEQ_KIB = 2


def run(name, args):
    out = os.path.join(a.runs, name)
    if not os.path.exists(os.path.join(out, "summary.json")):
        subprocess.run([a.sluice, "run", "scenarios/dumbbell-asm.yaml", "--quiet", "--out", out] + args, check=True)
    return out


def table(d, name):
    with open(os.path.join(d, name)) as f:
        return list(csv.DictReader(f))


def aggregate_rate(d):
    return [sum(float(v) for k, v in r.items() if k != "time_us" and not k.endswith(" target"))
            for r in table(d, "flow_rate.csv")]


os.makedirs(a.img, exist_ok=True)
d = run("asm", [])
q = [float(r[QUEUE]) / 1024 for r in table(d, "queue_depth.csv")]
rate = [x / 1e9 for x in aggregate_rate(d)]
fig, ax = plt.subplots(figsize=(6, 4.5))
ax.plot(q, rate, lw=0.6, marker=".", ms=2, label="trajectory (every 10 us)")
ax.plot(q[0], rate[0], "go", label="start")
qs = [x / 10 for x in range(0, 800)]
line = [C / 1e9 / (1 + (x * 1024 - QEQ) / (W * S)) for x in qs]  # sigma = 0 solved for R
ax.plot(qs, line, "k--", lw=1, label="boundary line sigma = 0")
ax.plot(QEQ / 1024, C / 1e9, "r*", ms=12, label="stable point (Qeq, C)")
ax.set_xlim(0, max(80, max(q) * 1.05))
ax.set_ylim(0, max(rate) * 1.05)
ax.set_xlabel("bottleneck queue Q (KiB)")
ax.set_ylabel("aggregate rate R (Gb/s)")
ax.set_title("ASM, 3 flows on a 40 Gb/s dumbbell: the Q/R plane")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(a.img, "asm-phase-plane.png"), dpi=120)

fig, (aq, at) = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
for cc, colour in (("asm", "C0"), ("qcn", "C3")):
    d = run("small-qeq-" + cc, ["--cc", cc, "--set", f"sw0.port*.prio3.{cc}.qeq={SMALL_QEQ_KIB}KiB", "--until", "7ms"])
    rows = table(d, "queue_depth.csv")
    t = [float(r["time_us"]) / 1000 for r in rows]
    aq.plot(t, [float(r[QUEUE]) / 1024 for r in rows], colour, lw=0.7, label=cc)
    tp = table(d, "link_throughput.csv")
    at.plot([float(r["time_us"]) / 1000 for r in tp], [float(r["sw0->sw1"]) for r in tp], colour, lw=0.7, label=cc)
aq.axhline(SMALL_QEQ_KIB, color="k", ls="--", lw=0.8, label=f"Qeq = {SMALL_QEQ_KIB} KiB")
aq.set_ylim(0, 20)
aq.set_ylabel("bottleneck queue (KiB)")
aq.legend(fontsize=8)
at.set_ylim(20, 42)
at.set_ylabel("bottleneck Gb/s")
at.set_xlabel("time (ms)")
fig.suptitle("Small Qeq: ASM keeps the queue and the link; QCN loses throughput")
fig.tight_layout()
fig.savefig(os.path.join(a.img, "asm-small-qeq.png"), dpi=120)
