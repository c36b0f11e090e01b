#!/usr/bin/env python3
"""Adaptive-routing study on a k = 8 fat tree (opt-in, not a test; docs/studies/adaptive-routing-k8.md).

Two traffic patterns on the k = 8, three-tier fat tree (128 hosts, 40 Gb/s, 1 us links):
  - hotspot: uniform traffic (every host draws fb-hadoop flows to random hosts at 40 % load
    for 2 ms) plus a hotspot (14 hosts, two per pod 1..7, at line rate to h0_0_0 all run),
    2.5 ms;
  - hpc: a permutation (each host 1 MB to its partner in a seeded random derangement, at 0),
    then an all-to-all (each host 8 KB to every other, at 300 us), until every flow is done
    (at most 5 ms).
Six routing choices: d-mod-k (platform routing), random (per-packet spraying), ECMP, switch AR
(`adaptive`), local AR (`adaptive-local`) and source AR (`r3c2`), each without and with rate
control (QCN). Without rate control, switch AR and source AR still get QCN's notifications (the
congestion points run) but no source cuts its rate: route only.

Writes the runs under --out, and with --docs DIR the table (ar-k8-table.md), the results
(ar-k8.csv) and the figures (img/ar-k8-*.png) there. Run it under the machine's build lock:
    /tmp/lk tools/ar_study.py --docs docs/studies          (about 4 minutes on 2 cores)
"""
import argparse
import concurrent.futures as cf
import csv
import json
import os
import random
import subprocess
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--sluice", default="build/platforms/sluice")
ap.add_argument("--out", default=None, help="keep the runs here (default: a temporary folder)")
ap.add_argument("--docs", default=None, help="write the table, results and figures into this folder")
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--patterns", default="hotspot,hpc")
ap.add_argument("--seed", default="1")
a = ap.parse_args()
root = a.out or tempfile.mkdtemp(prefix="ar_study_")

K, HALF = 8, 4
HOSTS = [f"h{p}_{e}_{h}" for p in range(K) for e in range(HALF) for h in range(HALF)]
PLATFORM = "{kind: fat-tree, k: 8, tiers: 3, link_rate: 40Gbps, link_delay: 1us%s}"
HOT = "h0_0_0"
HOT_SENDERS = [f"h{p}_{e}_0" for p in range(1, K) for e in (0, 1)]
PERM_BYTES, A2A_BYTES, A2A_START_US = 1_000_000, 8_000, 300

ROUTING = ["d-mod-k", "random", "ecmp", "adaptive", "adaptive-local", "r3c2"]
LABEL = {"d-mod-k": "d-mod-k", "random": "random", "ecmp": "ECMP", "adaptive": "switch AR",
         "adaptive-local": "local AR", "r3c2": "source AR"}


def scenario(pattern, routing):
    dmodk = ", routing: d-mod-k" if routing == "d-mod-k" else ""
    lines = [f"name: ar-k8-{pattern}", "platform: " + PLATFORM % dmodk, "traffic:"]
    if pattern == "hotspot":
        lines.append('  - {kind: workload, src: "h*", dst: "h*", cdf: fb-hadoop, load: 0.4, start: 0us, '
                     "stop: 2ms, priority: 3}")
        lines += [f"  - {{kind: constant, src: {s}, dst: {HOT}, rate: 40Gbps, priority: 3}}" for s in HOT_SENDERS]
        lines.append("run: {until: 2.5ms, sample_period: 50us}")
    else:
        rng = random.Random(int(a.seed))
        while True:  # a derangement: nobody sends to itself
            perm = HOSTS[:]
            rng.shuffle(perm)
            if all(s != d for s, d in zip(HOSTS, perm)):
                break
        lines += [f"  - {{kind: finite, src: {s}, dst: {d}, size: {PERM_BYTES}, priority: 3}}"
                  for s, d in zip(HOSTS, perm)]
        lines += [f"  - {{kind: finite, src: {s}, dst: {d}, size: {A2A_BYTES}, start: {A2A_START_US}us, "
                  "priority: 3}" for s in HOSTS for d in HOSTS if s != d]
        lines.append("run: {until: 5ms, sample_period: 50us, stop_when_done: true}")
    return "\n".join(lines) + "\n"


def options(routing, rc):
    """The CLI options of one routing choice, with (rc = 'qcn') or without ('none') rate control."""
    sets = {"random": ["*.forwarding=random"], "adaptive": ["*.forwarding=adaptive"],
            "adaptive-local": ["*.forwarding=adaptive-local"], "r3c2": ["h*.routing=r3c2"]}.get(routing, [])
    cc = rc
    if rc == "none" and routing == "adaptive":  # route only: notifications snooped, no source reacts
        cc, sets = "qcn", sets + ["h*.rp=none"]
    if rc == "none" and routing == "r3c2":  # route only: paths move, no path limiter is cut
        cc, sets = "qcn", sets + ["h*.r3c2.rate_control=false"]
    out = ["--cc", cc, "--allow-inert"]
    for s in sets:
        out += ["--set", s]
    return out


def run(job):
    pattern, routing, rc = job
    d = os.path.join(root, f"{pattern}-{routing}-{rc}")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "s.yaml")
    with open(path, "w") as f:
        f.write(scenario(pattern, routing))
    cmd = [a.sluice, "run", path, "--seed", a.seed, "--out", d, "-q"] + options(routing, rc)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "summary.json")) as f:
        return job, measure(pattern, json.load(f))


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def counter_sum(s, suffix):
    return sum(v for k, v in s["counters"].items() if k.endswith(suffix))


def measure(pattern, s):
    flows = s["flows"]
    sim_ns = s["totals"]["sim_time_ns"]
    m = {"drops": s["totals"]["drops"], "resequenced": counter_sum(s, ".resequenced"),
         "reseq_max_us": max([v for k, v in s["counters"].items() if k.endswith(".resequencing_delay_max")] or [0]) / 1e3,
         "cnms": s["totals"]["cnm_frames"], "reroutes": counter_sum(s, ".ar_reroutes"),
         "activations": counter_sum(s, ".r3c2_activations"), "deadlocks": len(s.get("deadlocks", []))}
    if pattern == "hotspot":
        hot = [f for f in flows if f["kind"] == "constant"]
        uni = [f for f in flows if f["kind"] == "finite"]
        done = [f for f in uni if f["completed"]]
        m["uniform_gbps"] = sum(f["rx_bytes"] for f in uni) * 8 / sim_ns  # aggregate, over the run
        m["completed"] = len(done) / len(uni)
        m["fct_mean_us"] = mean([f["fct_ns"] / 1e3 for f in done])
        m["fct_p99_us"] = pct([f["fct_ns"] / 1e3 for f in done], 0.99)
        m["short_fct_us"] = mean([f["fct_ns"] / 1e3 for f in done if f["size_bytes"] <= 100_000])
        m["hotspot_gbps"] = sum(f["rx_bytes"] for f in hot) * 8 / sim_ns
    else:
        perm = [f for f in flows if f["size_bytes"] == PERM_BYTES]
        a2a = [f for f in flows if f["size_bytes"] == A2A_BYTES]
        inf = float("inf")
        m["perm_done_us"] = max((f["fct_ns"] / 1e3 if f["completed"] else inf) for f in perm)
        m["perm_mean_gbps"] = mean([f["throughput_bps"] / 1e9 for f in perm])
        m["a2a_done_us"] = max((f["fct_ns"] / 1e3 if f["completed"] else inf) for f in a2a)
        m["a2a_fct_mean_us"] = mean([f["fct_ns"] / 1e3 for f in a2a if f["completed"]])
        m["total_us"] = sim_ns / 1e3
    return m


def main():
    jobs = [(p, r, rc) for p in a.patterns.split(",") for r in ROUTING for rc in ("none", "qcn")]
    results = {}
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        for job, m in pool.map(run, jobs):
            results[job] = m
            print(job, {k: round(v, 3) if isinstance(v, float) else v for k, v in m.items()}, flush=True)
    table = tables(results)
    print(table)
    if a.docs:
        os.makedirs(os.path.join(a.docs, "img"), exist_ok=True)
        with open(os.path.join(a.docs, "ar-k8-table.md"), "w") as f:
            f.write(table)
        keys = sorted({k for m in results.values() for k in m})
        with open(os.path.join(a.docs, "ar-k8.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["pattern", "routing", "rate_control"] + keys)
            for (p, r, rc), m in results.items():
                w.writerow([p, r, rc] + [round(m[k], 3) if isinstance(m.get(k), float) else m.get(k, "") for k in keys])
        plots(results, os.path.join(a.docs, "img"))


def fmt(v, digits=1):
    return "—" if v != v or v == float("inf") else f"{v:.{digits}f}"


def tables(results):
    out = []
    hot = [(r, rc) for r in ROUTING for rc in ("none", "qcn") if ("hotspot", r, rc) in results]
    if hot:
        out += ["| Routing | Rate control | Uniform goodput (Gb/s, all hosts) | Flows done | FCT mean (µs) | "
                "FCT p99 (µs) | Short flows' FCT (µs, ≤ 100 KB) | Hotspot goodput (Gb/s) | Resequenced | "
                "Longest wait (µs) | Drops |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r, rc in hot:
            m = results[("hotspot", r, rc)]
            out.append(f"| {LABEL[r]} | {rc} | {fmt(m['uniform_gbps'])} | {m['completed']:.1%} | "
                       f"{fmt(m['fct_mean_us'])} | {fmt(m['fct_p99_us'])} | {fmt(m['short_fct_us'])} | "
                       f"{fmt(m['hotspot_gbps'])} | {int(m['resequenced'])} | {fmt(m['reseq_max_us'])} | "
                       f"{m['drops']} |")
        out.append("")
    hpc = [(r, rc) for r in ROUTING for rc in ("none", "qcn") if ("hpc", r, rc) in results]
    if hpc:
        out += ["| Routing | Rate control | Permutation done (µs) | Permutation mean (Gb/s per flow) | "
                "All-to-all done (µs after its start, longest FCT) | All-to-all FCT mean (µs) | Resequenced | "
                "Longest wait (µs) | Drops |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r, rc in hpc:
            m = results[("hpc", r, rc)]
            out.append(f"| {LABEL[r]} | {rc} | {fmt(m['perm_done_us'])} | {fmt(m['perm_mean_gbps'])} | "
                       f"{fmt(m['a2a_done_us'])} | {fmt(m['a2a_fct_mean_us'])} | {int(m['resequenced'])} | "
                       f"{fmt(m['reseq_max_us'])} | {m['drops']} |")
        out.append("")
    return "\n".join(out) + "\n"


def plots(results, img):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def bars(pattern, metrics, name, title):
        if not any(k[0] == pattern for k in results):
            return
        fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 3.6))
        axes = axes if len(metrics) > 1 else [axes]
        x = range(len(ROUTING))
        for ax, (key, ylabel) in zip(axes, metrics):
            for i, rc in enumerate(("none", "qcn")):
                v = [results[(pattern, r, rc)][key] for r in ROUTING]
                v = [0 if val == float("inf") or val != val else val for val in v]
                ax.bar([xi + (i - 0.5) * 0.4 for xi in x], v, 0.4, label="no rate control" if rc == "none" else "QCN")
            ax.set_xticks(list(x))
            ax.set_xticklabels([LABEL[r] for r in ROUTING], rotation=30, ha="right")
            ax.set_ylabel(ylabel)
            ax.grid(axis="y", alpha=0.3)
        axes[0].legend(fontsize=8)
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(os.path.join(img, name), dpi=110)
        plt.close(fig)

    bars("hotspot", [("uniform_gbps", "uniform goodput, Gb/s"), ("fct_mean_us", "FCT mean, µs"),
                     ("fct_p99_us", "FCT p99, µs")], "ar-k8-hotspot.png",
         "k = 8 fat tree: uniform traffic + a 14:1 hotspot")
    bars("hpc", [("perm_mean_gbps", "permutation, mean Gb/s per flow"),
                 ("a2a_fct_mean_us", "all-to-all FCT mean, µs")],
         "ar-k8-hpc.png", "k = 8 fat tree: permutation (1 MB), then all-to-all (8 KB)")


if __name__ == "__main__":
    main()
