#!/usr/bin/env python3
"""DCQCN's mean bottleneck queue against the CoNEXT'16 fluid model's fixed point (Theorem 1).

Runs N line-rate DCQCN flows over a dumbbell at each rate (the paper's parameters, 1000 B frames,
1 us links; the DcqcnFluid tests' setup), for each seed, and compares the mean queue over the
last 80 % of the run with q* = Kmin + p*/Pmax (Kmax - Kmin). queue_depth.csv counts the frames
still in the switch's 500 ns pipeline, the model's queue does not: by Little's law they average
the arrival rate x 500 ns = C x 500 ns on the busy bottleneck, which is subtracted. Prints the
table of docs/models/dcqcn.md ("Against the fluid model") and, with --img, draws the figure.
Opt-in (not part of the test suite); run it under `flock /tmp/sluice-build.lock` on the shared
machine (about 2 s per run):

    .venv/bin/python tools/dcqcn_fluid_compare.py --img docs/models/img/dcqcn-fluid.png
"""
import argparse
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dcqcn_fluid import fixed_point  # noqa: E402

KMIN, PIPELINE_S = 5000, 500e-9


def scenario(gbps, n, until_ms):
    lines = [f"platform: {{kind: dumbbell, senders: {n}, receivers: {n}, link_rate: {gbps}Gbps, "
             f"bottleneck_rate: {gbps}Gbps, link_delay: 1us}}", "traffic:"]
    lines += [f"  - {{kind: constant, src: h{i}, dst: r{i}, rate: {gbps}Gbps, priority: 3, cc: dcqcn}}" for i in range(n)]
    lines.append(f"run: {{until: {until_ms}ms, sample_period: 10us}}")
    return "\n".join(lines) + "\n"


def mean_queue(sluice, runs, gbps, n, seed, until_ms, extra):
    tag = f"{gbps}g-{n}-s{seed}" + ("-" + "-".join(x.replace("=", "_").replace("*", "") for x in extra) if extra else "")
    d = os.path.join(runs, tag)
    if not os.path.exists(os.path.join(d, "summary.json")):
        os.makedirs(d, exist_ok=True)
        y = os.path.join(d, "scenario.yaml")
        with open(y, "w") as f:
            f.write(scenario(gbps, n, until_ms))
        cmd = [sluice, "run", y, "--seed", str(seed), "--out", d, "-q"]
        for x in extra:
            cmd += ["--set", x]
        subprocess.run(cmd, check=True)
    col = f"sw0.port{n}.p3"
    total = count = 0
    with open(os.path.join(d, "queue_depth.csv")) as f:
        for row in csv.DictReader(f):
            if float(row["time_us"]) > until_ms * 200:
                total += float(row[col])
                count += 1
    return total / count - gbps * 1e9 / 8 * PIPELINE_S


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sluice", default="build/platforms/sluice")
    ap.add_argument("--runs", default="out/dcqcn-fluid")
    ap.add_argument("--gbps", type=int, nargs="+", default=[40, 100])
    ap.add_argument("--flows", type=int, nargs="+", default=[2, 4, 8, 16])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--until-ms", type=int, default=100)
    ap.add_argument("--set", action="append", default=[], help="a parameter override for every run (repeatable)")
    ap.add_argument("--img", help="write the figure here")
    a = ap.parse_args()
    results = []
    print("C_Gbps  N  p*        q*_KB  mean_queue_KB(seeds)        ratio(q-Kmin)/(q*-Kmin)")
    for c in a.gbps:
        for n in a.flows:
            p, qs = fixed_point(c * 1e9, n)
            qs_m = [mean_queue(a.sluice, a.runs, c, n, s, a.until_ms, a.set) for s in a.seeds]
            ratios = [(q - KMIN) / (qs - KMIN) for q in qs_m]
            results.append((c, n, p, qs, qs_m, ratios))
            print(f"{c:6d} {n:2d}  {p:.6f}  {qs / 1e3:5.1f}  " + " / ".join(f"{q / 1e3:.1f}" for q in qs_m) +
                  "    " + " / ".join(f"{r:.2f}" for r in ratios), flush=True)
    if a.img:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6.4, 3.8))
        for i, c in enumerate(a.gbps):
            rs = [r for r in results if r[0] == c]
            color = f"C{i}"
            ns = [r[1] for r in rs]
            ax.plot(ns, [r[3] / 1e3 for r in rs], "-", color=color, label=f"fluid fixed point q*, {c} Gb/s")
            ax.plot(ns, [fixed_point(c * 1e9, n, holdoff=True)[1] / 1e3 for n in ns], "--", color=color, lw=0.9,
                    label=f"the same with the RP's CNP hold-off, {c} Gb/s")
            for r in rs:
                ax.plot([r[1]] * len(r[4]), [q / 1e3 for q in r[4]], "o", color=color, ms=4, alpha=0.8)
            ax.plot([], [], "o", color=color, ms=4, label=f"Sluice mean queue, {c} Gb/s (seeds)")
        ax.axhline(KMIN / 1e3, ls=":", color="gray", lw=0.8, label="Kmin")
        ax.set_yscale("log")
        ax.set_xscale("log", base=2)
        ax.set_xticks(a.flows)
        ax.set_xticklabels([str(n) for n in a.flows])
        ax.set_xlabel("flows N")
        ax.set_ylabel("bottleneck queue (KB)")
        ax.set_title("DCQCN (paper parameters): mean queue vs the CoNEXT'16 fixed point", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(a.img, dpi=120)
        print("wrote", a.img)


if __name__ == "__main__":
    main()
