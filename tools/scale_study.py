#!/usr/bin/env python3
"""Scale study (opt-in, docs/scale.md): how elaboration time, memory and speed grow with hosts.

Builds leaf-spine fabrics (32 hosts per leaf, 32 spines) and three-tier fat trees (k = 16, 20,
26, 34) from about 1 000 to 10 000 hosts, all links 40 Gb/s and 1 us, and runs each for a
simulated time under a permutation at 50 % load: every host sends a constant 20 Gb/s flow to
one other host, the pairing a seeded random derangement (no host sends to itself, every host
receives one flow). Each run is one `sluice run` under /usr/bin/time; the script reports
elaboration time, simulation wall time, packet-hops, packet-hops per second, the ratio to the
incast benchmark's per-hop speed (measured with the same binary) and peak memory, and writes a
CSV, a Markdown table and the plots named in docs/scale.md.

    tools/scale_study.py --sluice build/platforms/sluice --out docs/figures/scale

`--window-hosts H` runs each fabric with window partitions of about H hosts each
(`--window-partitions hosts // H`, docs/parallel.md), one process on one core as before;
`--window-threads T` with it drains each window's partitions on T threads (at most one a
partition).
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile

# (name, hosts, platform section): the fabrics of the study, smallest first.
LEAF_SPINE = [(f"leaf-spine-{32 * n}", 32 * n, {"kind": "leaf-spine", "leaves": n, "spines": 32, "hosts": 32})
              for n in (32, 64, 128, 320)]
FAT_TREE = [(f"fat-tree-k{k}", k**3 // 4, {"kind": "fat-tree", "k": k, "tiers": 3}) for k in (16, 20, 26, 34)]


def host_names(platform):
    """The NIC names the platform builder gives (platforms/builders.cpp)."""
    if platform["kind"] == "leaf-spine":
        return [f"h{i}_{j}" for i in range(platform["leaves"]) for j in range(platform["hosts"])]
    k = platform["k"]
    half = k // 2
    return [f"h{p}_{e}_{h}" for p in range(k) for e in range(half) for h in range(half)]


def derangement(n, rng):
    """A uniformly shuffled cyclic shift of a random order: every host sends to one other host."""
    order = list(range(n))
    rng.shuffle(order)
    dst = [0] * n
    for i in range(n):
        dst[order[i]] = order[(i + 1) % n]
    return dst


def scenario_text(name, platform, until, seed):
    hosts = host_names(platform)
    dst = derangement(len(hosts), random.Random(seed))
    lines = [f"name: scale-{name}", "platform:"]
    lines += [f"  {k}: {v}" for k, v in platform.items()]
    lines += ["  link_rate: 40Gbps", "  link_delay: 1us", "run:", f"  until: {until}", f"  seed: {seed}",
              "  sample_period: 100us", "traffic:"]
    lines += [f"  - {{kind: constant, src: {h}, dst: {hosts[dst[i]]}, rate: 20Gbps}}" for i, h in enumerate(hosts)]
    return "\n".join(lines) + "\n"


def window_partitions(hosts, window_hosts):
    """Partitions of about window_hosts hosts each, within what --window-partitions takes (1 to 254)."""
    return 1 if window_hosts == 0 else max(1, min(254, hosts // window_hosts))


def window_options(hosts, args):
    """The partitions of a fabric of `hosts` and the CLI options that run it in them."""
    parts = window_partitions(hosts, args.window_hosts)
    if parts < 2:
        return parts, []
    return parts, ["--window-partitions", str(parts), "--window-threads", str(min(args.window_threads, parts))]


def run(sluice, scenario, out, extra=()):
    """One run under /usr/bin/time: (whole-process wall s, peak RSS MiB, summary totals)."""
    cmd = ["/usr/bin/time", "-f", "%e %M", sluice, "run", scenario, "-q", "--out", out, *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"scale_study: {' '.join(cmd[3:])} failed: {p.stderr.strip().splitlines()[-1:]}")
    total_s, rss_kib = p.stderr.strip().splitlines()[-1].split()
    totals = json.load(open(os.path.join(out, "summary.json")))["totals"]
    return float(total_s), int(rss_kib) / 1024, totals


def incast_rate(sluice, root, tmp):
    """The incast benchmark's packet-hops per second (tools/bench.sh's run), the speed reference."""
    _, _, t = run(sluice, os.path.join(root, "scenarios/incast.yaml"), os.path.join(tmp, "incast"),
                  ["--until", "20ms", "--set", "*.mtu=1000B"])
    return t["packet_hops"] / t["wall_time_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sluice", default="build/platforms/sluice")
    ap.add_argument("--out", default="docs/figures/scale", help="folder for the CSVs, the table (scale.md) and the plots")
    ap.add_argument("--until", default="1ms", help="simulated time of each fabric run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--window-hosts", type=int, default=0,
                    help="run each fabric in window partitions of about this many hosts (0: the whole fabric at once)")
    ap.add_argument("--window-threads", type=int, default=1,
                    help="with --window-hosts: threads that drain each window's partitions at once")
    ap.add_argument("--only", default="", help="comma-separated fabric names (default: all)")
    ap.add_argument("--time-fabric", default="leaf-spine-2048", help="the fabric run for several simulated times")
    ap.add_argument("--time-points", default="0.25ms,0.5ms,1ms,2ms",
                    help="its simulated times, for wall time and memory against simulated time ('' for none)")
    args = ap.parse_args()
    if args.window_hosts < 0:
        sys.exit(f"scale_study: --window-hosts: '{args.window_hosts}' is not a count of hosts (0 for none)")
    if args.window_threads < 1 or (args.window_threads > 1 and args.window_hosts == 0):
        sys.exit(f"scale_study: --window-threads: '{args.window_threads}' needs to be 1, or more with --window-hosts")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(args.out, exist_ok=True)
    fabrics = LEAF_SPINE + FAT_TREE
    if args.only:
        wanted = set(args.only.split(","))
        unknown = sorted(wanted - {f[0] for f in fabrics})
        if unknown:
            sys.exit(f"scale_study: --only: '{unknown[0]}' is not one of: {', '.join(f[0] for f in fabrics)}")
        fabrics = [f for f in fabrics if f[0] in wanted]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ref = incast_rate(args.sluice, root, tmp)
        print(f"incast reference: {ref / 1e6:.2f} M packet-hops/s")
        for name, hosts, platform in fabrics:
            path = os.path.join(tmp, name + ".yaml")
            with open(path, "w") as f:
                f.write(scenario_text(name, platform, args.until, args.seed))
            parts, extra = window_options(hosts, args)
            total, rss, t = run(args.sluice, path, os.path.join(tmp, name), extra)
            rate = t["packet_hops"] / t["wall_time_s"]
            row = {"fabric": name, "hosts": hosts, "until": args.until, "elaboration_s": t["elaboration_s"],
                   "wall_time_s": t["wall_time_s"], "process_s": total, "packet_hops": t["packet_hops"],
                   "hops_per_s": rate, "vs_incast": rate / ref, "peak_mib": rss, "window_partitions": parts,
                   "drops": t.get("drops", 0)}
            rows.append(row)
            print(f"{name}: {hosts} hosts, elaboration {row['elaboration_s']:.2f} s, simulation "
                  f"{row['wall_time_s']:.2f} s for {row['packet_hops']} hops ({rate / 1e6:.2f} M/s, "
                  f"{row['vs_incast']:.2f}x incast), peak {rss:.0f} MiB", flush=True)
        time_rows = []
        timed = [f for f in LEAF_SPINE + FAT_TREE if f[0] == args.time_fabric]
        if not timed and args.time_points:
            sys.exit(f"scale_study: --time-fabric: '{args.time_fabric}' is not one of the study's fabrics")
        if args.time_points:
            name, hosts, platform = timed[0]
            for until in args.time_points.split(","):
                path = os.path.join(tmp, f"{name}-{until}.yaml")
                with open(path, "w") as f:
                    f.write(scenario_text(name, platform, until, args.seed))
                _, extra = window_options(hosts, args)
                total, rss, t = run(args.sluice, path, os.path.join(tmp, f"{name}-{until}"), extra)
                time_rows.append({"fabric": name, "until": until, "packet_hops": t["packet_hops"],
                                  "wall_time_s": t["wall_time_s"], "peak_mib": rss})
                print(f"{name} until {until}: {t['packet_hops']} hops in {t['wall_time_s']:.2f} s, peak {rss:.0f} MiB",
                      flush=True)
    write_outputs(args.out, ref, rows, time_rows)


def write_outputs(out, ref, rows, time_rows):
    with open(os.path.join(out, "scale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if time_rows:
        with open(os.path.join(out, "scale_time.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(time_rows[0]))
            w.writeheader()
            w.writerows(time_rows)
    with open(os.path.join(out, "scale.md"), "w") as f:
        f.write(f"Incast reference: {ref / 1e6:.2f} M packet-hops/s.\n\n")
        f.write("| fabric | hosts | window partitions | elaboration (s) | simulation (s) | packet-hops | M hops/s | "
                "× incast | peak MiB |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in rows:
            f.write(f"| {r['fabric']} | {r['hosts']} | {r['window_partitions']} | {r['elaboration_s']:.2f} | {r['wall_time_s']:.2f} | "
                    f"{r['packet_hops']} | {r['hops_per_s'] / 1e6:.2f} | {r['vs_incast']:.2f} | {r['peak_mib']:.0f} |\n")
    plot(out, rows, time_rows)


def plot(out, rows, time_rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for family, marker in (("leaf-spine", "o"), ("fat-tree", "s")):
        rs = [r for r in rows if r["fabric"].startswith(family)]
        if not rs:
            continue
        h = [r["hosts"] for r in rs]
        axes[0].plot(h, [r["elaboration_s"] for r in rs], marker=marker, label=family)
        axes[1].plot(h, [r["peak_mib"] for r in rs], marker=marker, label=family)
        axes[2].plot(h, [r["vs_incast"] for r in rs], marker=marker, label=family)
    for ax, title in zip(axes, ("elaboration (s)", "peak memory (MiB)", "per-hop speed / incast's")):
        ax.set_xlabel("hosts")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scale_hosts.png"), dpi=110)
    if time_rows:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
        hops = [r["packet_hops"] for r in time_rows]
        axes[0].plot(hops, [r["wall_time_s"] for r in time_rows], marker="o")
        axes[0].set_xlabel("packet-hops simulated")
        axes[0].set_title("simulation wall time (s)")
        axes[1].plot([r["until"] for r in time_rows], [r["peak_mib"] for r in time_rows], marker="o")
        axes[1].set_xlabel("simulated time")
        axes[1].set_title("peak memory (MiB)")
        for ax in axes:
            ax.grid(alpha=0.3)
            ax.set_ylim(bottom=0)
        axes[0].set_xlim(left=0)
        fig.suptitle(time_rows[0]["fabric"])
        fig.tight_layout()
        fig.savefig(os.path.join(out, "scale_time.png"), dpi=110)


if __name__ == "__main__":
    main()
