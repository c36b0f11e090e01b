#!/usr/bin/env python3
"""Congestion-control study (opt-in, not a test): each scheme of `sluice run --cc` on
  - a dumbbell with N = 2, 4, 8 long flows joining 1 ms apart, the odd-numbered ones leaving
    (finite, 25 MB each) while the even-numbered stay (constant 40 Gb/s), 40 ms;
  - a parking lot of n = 2, 4, 8 switches (the long flow h0->r0 across n - 1 links, a cross flow
    per link) joining 1 ms apart, odd cross flows leaving (finite, 25 MB), 40 ms;
  - the shipped pcn-basic (bursts to r1 from 1 ms): congestion-tree lifetime and the victim F0's
    throughput during the bursts.
Prints markdown tables (the ones in docs/models/cc-study.md).

usage: tools/cc_study.py [--sluice build/platforms/sluice] [--schemes none,qcn,ecm,dcqcn,timely]
       [--out DIR]   (run it under `flock /tmp/sluice-build.lock` on the shared machine)
"""
import argparse
import csv
import json
import os
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--sluice", default="build/platforms/sluice")
ap.add_argument("--schemes", default="none,qcn,ecm,dcqcn,timely")
ap.add_argument("--out", default=None, help="keep the runs' outputs here (default: a temporary folder)")
ap.add_argument("--seed", default="1")
a = ap.parse_args()
root = a.out or tempfile.mkdtemp(prefix="cc_study_")
schemes = a.schemes.split(",")


def run(yaml_text, name, cc, until=None, period="100us"):
    d = os.path.join(root, f"{name}-{cc}")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "s.yaml")
    with open(path, "w") as f:
        f.write(yaml_text)
    cmd = [a.sluice, "run", path, "--cc", cc, "--seed", a.seed, "--sample-period", period, "--out", d, "-q"]
    if until:
        cmd += ["--until", until]
    subprocess.run(cmd, check=True)
    with open(os.path.join(d, "summary.json")) as f:
        return d, json.load(f)


def series(d, name):
    with open(os.path.join(d, name)) as f:
        rows = list(csv.DictReader(f))
    return rows


def mean(v):
    return sum(v) / len(v) if v else 0.0


def jain(x):
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and any(x) else 0.0


def util(s, link):
    return next(l["utilization"] for l in s["links"] if l["name"] == link)


def feedback(s):
    t = s["totals"]
    acks = sum(v for k, v in s["counters"].items() if k.endswith(".ack_received"))
    return int(t["cnm_frames"] + t["cnp_frames"] + acks)


def dumbbell(n):
    flows = []
    for i in range(n):
        kind = "{kind: constant, rate: 40Gbps" if i % 2 == 0 else "{kind: finite, size: 25MB"
        flows.append(f"  - {kind}, src: h{i}, dst: r{i}, priority: 3, start: {i}ms}}")
    return (f"name: study-dumbbell-{n}\nplatform: {{kind: dumbbell, senders: {n}, receivers: {n}, "
            "link_rate: 40Gbps, bottleneck_rate: 40Gbps, link_delay: 1us}\ntraffic:\n" + "\n".join(flows) +
            "\nrun: {until: 40ms}\n")


def parking_lot(n):
    # n switches: the long flow h0->r0 (constant) and n - 1 cross flows x_i->y_i, one per link,
    # joining 1 ms apart; odd-numbered cross flows are finite (25 MB) and leave.
    flows = ["  - {kind: constant, rate: 40Gbps, src: h0, dst: r0, priority: 3, start: 0ms}"]
    for i in range(n - 1):
        kind = "{kind: finite, size: 25MB" if i % 2 else "{kind: constant, rate: 40Gbps"
        flows.append(f"  - {kind}, src: x{i}, dst: y{i}, priority: 3, start: {i + 1}ms}}")
    return (f"name: study-parking-lot-{n}\nplatform: {{kind: parking-lot, switches: {n}, link_rate: 40Gbps, "
            "link_delay: 1us}\ntraffic:\n" + "\n".join(flows) + "\nrun: {until: 40ms}\n")


def tail_stats(d, s, queue_col, t0_us):
    q = [float(r[queue_col]) for r in series(d, "queue_depth.csv") if float(r["time_us"]) > t0_us]
    ft = series(d, "flow_throughput.csv")
    cols = [c for c in ft[0] if c != "time_us"]
    means = [mean([float(r[c]) for r in ft if float(r["time_us"]) > t0_us]) for c in cols]
    return q, dict(zip(cols, means))


print("## Dumbbell: N long flows joining 1 ms apart, odd ones (25 MB) leaving; 40 ms\n")
print("| N | scheme | bottleneck busy | queue mean / max after 30 ms (KB) | Jain, staying flows, 30-40 ms | "
      "PFC frames | drops | feedback frames |")
print("|---|---|---|---|---|---|---|---|")
for n in (2, 4, 8):
    for cc in schemes:
        d, s = run(dumbbell(n), f"dumbbell{n}", cc)
        q, m = tail_stats(d, s, f"sw0.port{n}.p3", 30000)
        staying = [v for k, v in m.items() if int(k.split("->")[0][1:]) % 2 == 0]
        print(f"| {n} | {cc} | {util(s, 'sw0->sw1'):.3f} | {mean(q) / 1e3:.1f} / {max(q) / 1e3:.1f} | "
              f"{jain(staying):.3f} | {s['totals']['pause_frames']} | {s['totals']['drops']} | {feedback(s)} |")

print("\n## Parking lot: h0->r0 across n - 1 links, a cross flow on each, joining 1 ms apart, odd cross flows "
      "(25 MB) leaving; 40 ms\n")
print("| n switches | scheme | h0->r0 (Gb/s, 30-40 ms) | staying cross flows (Gb/s, mean) | PFC frames | feedback frames |")
print("|---|---|---|---|---|---|")
for n in (2, 4, 8):
    for cc in schemes:
        d, s = run(parking_lot(n), f"parking-lot{n}", cc)
        ft = series(d, "flow_throughput.csv")
        cols = [c for c in ft[0] if c != "time_us"]
        m = {c: mean([float(r[c]) for r in ft if float(r["time_us"]) > 30000]) for c in cols}
        staying = [m[c] for c in cols if c.startswith("x") and int(c.split("->")[0][1:]) % 2 == 0]
        print(f"| {n} | {cc} | {m['h0->r0']:.1f} | {mean(staying):.1f} | {s['totals']['pause_frames']} | {feedback(s)} |")

print("\n## pcn-basic: bursts to r1 from 1 ms (victim F0 = h0->r0); 7 ms, 100 us samples\n")
print("| scheme | tree lifetime after 1 ms (ms) | switch ports paused until (ms after 1 ms) | max ports paused | "
      "paused port-time (ms) | "
      "F0 during 1-4.1 ms (Gb/s) | F0 total (MB) | PFC frames | feedback frames |")
print("|---|---|---|---|---|---|---|---|---|")
with open("scenarios/pcn-basic.yaml") as f:
    pcn = f.read()
for cc in schemes:
    d, s = run(pcn, "pcn-basic", cc, until="7ms")
    paused = series(d, "paused_fraction.csv")
    # The bursts' tree: any port paused after 1 ms but h0's and h1's (sw0 pauses them in the
    # steady state before the bursts already, without congestion control); lifetime = the last
    # such sample - 1 ms. Beyond the edge: switch ports paused (sw1 pausing sw0).
    def last_paused(keep):
        t = [float(r["time_us"]) for r in paused if float(r["time_us"]) > 1000 and
             any(float(v) > 0 for k, v in r.items() if k != "time_us" and keep(k))]
        return (max(t) - 1000) / 1000 if t else 0.0
    life = last_paused(lambda k: k not in ("h0.port0.p3", "h1.port0.p3"))
    inner = last_paused(lambda k: k.startswith("sw"))
    ft = series(d, "flow_throughput.csv")
    f0 = mean([float(r["h0->r0"]) for r in ft if 1000 < float(r["time_us"]) <= 4100])
    tree = s["congestion_tree"]
    f0_mb = next(fl["rx_bytes"] for fl in s["flows"] if fl["name"] == "h0->r0") / 1e6
    print(f"| {cc} | {life:.1f} | {inner:.1f} | {tree['max_ports_paused']} | {tree['paused_port_time_ns'] / 1e6:.1f} | {f0:.1f} | "
          f"{f0_mb:.1f} | {s['totals']['pause_frames']} | {feedback(s)} |")
print(f"\n(outputs in {root})")
