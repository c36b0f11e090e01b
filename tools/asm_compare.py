#!/usr/bin/env python3
"""Issue 20 item 8: ASM against QCN, DCQCN and PCN on one dumbbell (N flows at the line rate from
time 0 through one bottleneck of the same rate), one run per scheme (--cc), a Markdown table of
the metrics, written into docs/models/asm.md between its "asm-compare" markers.

usage: .venv/bin/python tools/asm_compare.py [--sluice build/platforms/sluice] [--gbps 100] [--flows 3]
           [--delay 1us] [--until 50ms] [--seeds 1,2] [--out out/asm-compare] [--no-docs]

Metrics, per scheme, averaged over the seeds (10 us samples; the bottleneck is sw0 -> sw1):
  - queue mean and p99 (KiB, `queue_depth.csv`, with the switch pipeline's C x 500 ns) and
    utilization, over the steady window: the second half of the run;
  - convergence time: the first sample time from which, to the end of the run, (a) the bottleneck
    carries >= 95 % of C averaged over 100 us and (b) the queue stays within
    max(10 KiB, 25 % of it) of its steady-window mean; "never" if no such time;
  - fair-share time: the first sample time from which every flow's throughput, averaged over
    100 us, stays within +-10 % of C / N to the end of the run; and Jain's index of the flows'
    mean throughputs over the steady window.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd

SCHEMES = ["asm", "qcn", "dcqcn", "pcn"]
# Row name -> (--cc scheme, extra arguments). DCQCN's RED thresholds of the 100 Gb/s generation
# (docs/models/profiles.md) as a second row: the declared defaults are the 40 Gb/s paper's.
VARIANTS = {"dcqcn (100g profile)": ("dcqcn", ["--profile", "100g"])}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- asm-compare:begin -->", "<!-- asm-compare:end -->"
WINDOW_US = 100


def scenario(gbps, flows, delay):
    lines = [f"name: asm-compare-{gbps}g-{flows}",
             f"platform: {{kind: dumbbell, senders: {flows}, receivers: {flows}, link_rate: {gbps}Gbps, "
             f"bottleneck_rate: {gbps}Gbps, link_delay: {delay}}}", "traffic:"]
    lines += [f"  - {{kind: constant, src: h{i}, dst: r{i}, rate: {gbps}Gbps, priority: 3}}" for i in range(flows)]
    return "\n".join(lines) + "\n"


def settled_from(times, ok):
    """First time from which ok holds at every later sample (None: never)."""
    bad = np.nonzero(~ok)[0]
    if len(bad) == 0:
        return times[0]
    return None if bad[-1] + 1 >= len(times) else times[bad[-1] + 1]


def metrics(d, gbps):
    q = pd.read_csv(os.path.join(d, "queue_depth.csv"))
    link = pd.read_csv(os.path.join(d, "link_throughput.csv"))
    f = pd.read_csv(os.path.join(d, "flow_throughput.csv")).drop(columns="time_us")
    t = q.time_us.to_numpy()
    period = t[1] - t[0]
    k = max(1, int(round(WINDOW_US / period)))
    summary = json.load(open(os.path.join(d, "summary.json")))
    port = next(p["port"] for p in summary["ports"] if p["node"] == "sw0" and p["peer"] == "sw1")
    queue = q[f"sw0.port{port}.p3"].to_numpy() / 1024
    util = link["sw0->sw1"].to_numpy() / gbps
    steady = t > t[-1] / 2
    mean_q = queue[steady].mean()
    smooth = lambda x: pd.Series(x).rolling(k, min_periods=1).mean().to_numpy()
    p99 = np.percentile(queue[steady], 99)
    converged = (smooth(util) >= 0.95) & (queue <= p99 + 10)
    share = gbps / f.shape[1]
    fair = np.all(np.abs(f.rolling(k, min_periods=1).mean().to_numpy() - share) <= 0.1 * share, axis=1)
    rates = f[steady].mean().to_numpy()
    return {"queue_mean": mean_q, "queue_p99": p99, "util": util[steady].mean(),
            "converge_us": settled_from(t, converged), "fair_us": settled_from(t, fair),
            "jain": rates.sum() ** 2 / (len(rates) * (rates ** 2).sum())}


def run(sluice, row, yaml_path, until, seed, out):
    cc, extra = VARIANTS.get(row, (row, []))
    d = os.path.join(out, f"{row.split()[0]}{'-' + extra[-1] if extra else ''}-s{seed}")
    subprocess.run([sluice, "run", yaml_path, "--cc", cc, "--until", until, "--seed", str(seed), "--sample-period",
                    "10us", "-q", "--out", d] + extra, check=True)
    return d


def fmt_time(values):
    if any(v is None for v in values):
        n = sum(v is None for v in values)
        return "never" if n == len(values) else f"never in {n} of {len(values)}"
    return f"{np.mean(values) / 1000:.2f} ms" if len(values) == 1 else \
        f"{np.mean(values) / 1000:.2f} ms ({min(values) / 1000:.2f}–{max(values) / 1000:.2f})"


def table(results):
    out = ["| Scheme | queue mean (KiB) | queue p99 (KiB) | utilization | convergence time | fair-share time | Jain |",
           "|---|---|---|---|---|---|---|"]
    for row, runs in results.items():
        avg = lambda key: np.mean([r[key] for r in runs])
        out.append(f"| {row} | {avg('queue_mean'):.1f} | {avg('queue_p99'):.1f} | {avg('util'):.4f} | "
                   f"{fmt_time([r['converge_us'] for r in runs])} | {fmt_time([r['fair_us'] for r in runs])} | "
                   f"{min(r['jain'] for r in runs):.3f} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sluice", default=os.path.join(ROOT, "build/platforms/sluice"))
    ap.add_argument("--gbps", type=int, default=100)
    ap.add_argument("--flows", type=int, default=3)
    ap.add_argument("--delay", default="1us")
    ap.add_argument("--until", default="50ms")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--out", default=os.path.join(ROOT, "out/asm-compare"))
    ap.add_argument("--no-docs", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    yaml_path = os.path.join(a.out, "dumbbell.yaml")
    with open(yaml_path, "w") as fh:
        fh.write(scenario(a.gbps, a.flows, a.delay))
    results = {}
    for row in SCHEMES[:3] + list(VARIANTS) + SCHEMES[3:]:
        results[row] = [metrics(run(a.sluice, row, yaml_path, a.until, int(s), a.out), a.gbps)
                        for s in a.seeds.split(",")]
    text = table(results)
    print(text)
    if a.no_docs:
        return
    doc = os.path.join(ROOT, "docs/models/asm.md")
    body = open(doc).read()
    if BEGIN not in body or END not in body:
        sys.exit(f"asm_compare: {doc} has no {BEGIN} ... {END} markers")
    head, rest = body.split(BEGIN, 1)
    caption = (f"\n{a.flows} flows, {a.gbps} Gb/s, link delay {a.delay}, {a.until}, seeds {a.seeds} "
               f"(`tools/asm_compare.py`):\n\n")
    open(doc, "w").write(head + BEGIN + caption + text + "\n" + END + rest.split(END, 1)[1])


if __name__ == "__main__":
    main()
