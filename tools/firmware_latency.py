#!/usr/bin/env python3
"""The firmware-latency table of docs/cosimulation.md: the shipped DCQCN firmware on every sender
of scenarios/dumbbell-dcqcn.yaml (long flows) and of a finite-flow variant (FCT), with each
feedback and timer event charged 0, 1, 5 or 20 us on one processing unit (TX events counted at
once: latency 'L,tx=0'; and rows with every event charged, TX included), and the built-in
reaction point as the reference.

With --firmware dcqcn-fixed (and --latencies 0 --every-event ''), the fixed-point variant's
difference from the built-in reaction point.

usage: tools/firmware_latency.py BUILD/platforms/sluice [--latencies 0,1us,5us,20us] [--firmware NAME]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FINITE = """name: dumbbell-dcqcn-finite
platform: {kind: dumbbell, senders: 4, receivers: 4, link_rate: 40Gbps, bottleneck_rate: 40Gbps, link_delay: 1us}
traffic:
  - {kind: finite, src: h0, dst: r0, size: 8MB, priority: 3, cc: dcqcn}
  - {kind: finite, src: h1, dst: r1, size: 8MB, priority: 3, cc: dcqcn, start: 100us}
  - {kind: finite, src: h2, dst: r2, size: 8MB, priority: 3, cc: dcqcn, start: 200us}
  - {kind: finite, src: h3, dst: r3, size: 8MB, priority: 3, cc: dcqcn, start: 300us}
run: {until: 50ms, seed: 1, sample_period: 100us, stop_when_done: true}
"""


def run(sluice, scenario, sets, out):
    cmd = [sluice, "run", scenario, "-q", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def bottleneck_peak(summary):
    return max(p["max_queue_bytes"] for p in summary["ports"] if p["node"] == "sw0" and p["peer"] == "sw1")


def rate_trace(out, start_us, end_us):
    """h0's rate: mean and standard deviation over [start, end), and its minimum, in Gb/s."""
    with open(os.path.join(out, "flow_rate.csv")) as f:
        rows = [r for r in csv.DictReader(f) if start_us <= float(r["time_us"]) < end_us]
    rates = [float(r["h0->r0"]) / 1e9 for r in rows]
    return statistics.mean(rates), statistics.pstdev(rates), min(rates)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sluice")
    ap.add_argument("--latencies", default="0,1us,5us,20us")
    ap.add_argument("--every-event", default="1us", help="rows with TX events charged too (comma list, '' none)")
    ap.add_argument("--no-builtin", action="store_true")
    ap.add_argument("--firmware", default="dcqcn", help="the shipped firmware on every sender")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sluice-fw-")
    finite = os.path.join(tmp, "finite.yaml")
    with open(finite, "w") as f:
        f.write(FINITE)
    long_lived = os.path.join(ROOT, "scenarios", "dumbbell-dcqcn.yaml")
    print("| Reaction point | latency | h0 rate 20-80 ms: mean, std (Gb/s) | h0 min rate (Gb/s) | "
          "bottleneck queue peak (KB) | CNPs at h0 | FCT 8 MB x 4: mean, max (ms) | coalesced |")
    print("|---|---|---|---|---|---|---|---|")
    cases = [] if a.no_builtin else [("built-in rp=dcqcn", None)]
    cases += [("firmware " + a.firmware, l + ",tx=0") for l in a.latencies.split(",") if l]
    cases += [("firmware %s, TX events too" % a.firmware, l) for l in a.every_event.split(",") if l]
    for label, latency in cases:
        sets = [] if latency is None else ["h*.firmware=" + a.firmware, "h*.firmware.latency=%s" % latency]
        out = os.path.join(tmp, "long-%d" % len(os.listdir(tmp)))
        s = run(a.sluice, long_lived, sets, out)
        mean, std, low = rate_trace(out, 20000, 80000)
        peak = bottleneck_peak(s)
        cuts = s["flows"][0]["cnp_frames"]
        coalesced = sum(v for k, v in s["counters"].items() if k.endswith("firmware.coalesced"))
        fout = os.path.join(tmp, "finite-%d" % len(os.listdir(tmp)))
        fs = run(a.sluice, finite, sets, fout)
        fcts = [fl["fct_ns"] / 1e6 for fl in fs["flows"]]
        print("| %s | %s | %.2f, %.2f | %.2f | %.1f | %d | %.3f, %.3f | %d |" % (
            label, latency or "-", mean, std, low, peak / 1000, cuts, statistics.mean(fcts), max(fcts), coalesced))


if __name__ == "__main__":
    sys.exit(main())
