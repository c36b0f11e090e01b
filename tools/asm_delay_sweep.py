#!/usr/bin/env python3
"""Issue 20 item 6: ASM and QCN on a dumbbell with a growing link delay; prints, per speed and
scheme, each delay's utilization and empty-queue fraction and the first delay at which the
scheme breaks.

usage: .venv/bin/python tools/asm_delay_sweep.py [--sluice build/platforms/sluice] [--gbps 10,40,100]
           [--flows 3] [--seed 1] [--delays 1,2,3,4,5,6,7,8,10,12,15,20,30,40,50] [--schemes asm,qcn]
           [--out out/asm-delay]

Each run: N line-rate flows from time 0 through one bottleneck of the line's rate, link delay d
on all three links of a path, for max(60 tau, 20 tau + 1200 d) with tau = w S / C (480, 120,
48 us at 10, 40, 100 Gb/s), sampled every tau / 40; measured over the last two thirds. A scheme
*breaks* at d when the bottleneck is < 99 % busy or its queue is empty (at most the switch
pipeline's C x 500 ns + 1 KiB) in more than 1 % of the samples.
"""
import argparse
import json
import os
import subprocess

import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tau_us(gbps):
    return 4 * 150000 * 8 / (gbps * 1e3)


def run(sluice, gbps, flows, delay_us, cc, seed, out):
    tau = tau_us(gbps)
    until = max(60 * tau, 20 * tau + 1200 * delay_us)
    lines = [f"name: asm-delay-{gbps}g-{delay_us}us",
             f"platform: {{kind: dumbbell, senders: {flows}, receivers: {flows}, link_rate: {gbps}Gbps, "
             f"bottleneck_rate: {gbps}Gbps, link_delay: {delay_us * 1000:.0f}ns}}", "traffic:"]
    lines += [f"  - {{kind: constant, src: h{i}, dst: r{i}, rate: {gbps}Gbps, priority: 3, cc: {cc}}}"
              for i in range(flows)]
    lines.append(f"run: {{until: {until:.0f}us, seed: {seed}, sample_period: {tau / 40 * 1000:.0f}ns}}")
    d = os.path.join(out, f"{cc}-{gbps}g-{delay_us:g}us")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "scenario.yaml")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    subprocess.run([sluice, "run", path, "-q", "--out", d], check=True)
    summary = json.load(open(os.path.join(d, "summary.json")))
    port = next(p["port"] for p in summary["ports"] if p["node"] == "sw0" and p["peer"] == "sw1")
    q = pd.read_csv(os.path.join(d, "queue_depth.csv"))
    link = pd.read_csv(os.path.join(d, "link_throughput.csv"))
    late = q.time_us >= until / 3
    queue_kib = q[f"sw0.port{port}.p3"][late] / 1024
    util = (link["sw0->sw1"][late] / gbps).mean()
    empty = (queue_kib <= gbps * 1e9 / 8 * 500e-9 / 1024 + 1).mean()
    return util, empty


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sluice", default=os.path.join(ROOT, "build/platforms/sluice"))
    ap.add_argument("--gbps", default="10,40,100")
    ap.add_argument("--flows", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--delays", default="1,2,3,4,5,6,7,8,10,12,15,20,30,40,50")
    ap.add_argument("--schemes", default="asm,qcn")
    ap.add_argument("--out", default=os.path.join(ROOT, "out/asm-delay"))
    a = ap.parse_args()
    delays = [float(x) for x in a.delays.split(",")]
    for gbps in (int(g) for g in a.gbps.split(",")):
        for cc in a.schemes.split(","):
            cells, breaks = [], None
            for d in delays:
                util, empty = run(a.sluice, gbps, a.flows, d, cc, a.seed, a.out)
                cells.append(f"{d:g}: {util:.3f}/{empty:.2f}")
                if breaks is None and (util < 0.99 or empty > 0.01):
                    breaks = d
            where = f"breaks at {breaks:g} us (tau / {tau_us(gbps) / breaks:.0f})" if breaks else "never breaks"
            print(f"{gbps} Gb/s {cc}: {where}; delay us: utilization/empty  " + "  ".join(cells))


if __name__ == "__main__":
    main()
