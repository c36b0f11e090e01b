#!/usr/bin/env python3
"""The PCN paper's realistic-workload study ([PCN] section 7.4, Fig. 14) on its 8-pod Clos: W1-
and W2-like traffic (web search [DCTCP], Hadoop [FB-Hadoop]) as incast events of random fan-in
1-15 at load 0.6 of every receiver's link, under each congestion-control scheme, with seeds, as
one sluice.sweep (local processes, or Dask with --dask) into a results store. Reports, pooled
over the seeds:
  - FCT slowdown (FCT / the flow's time alone on the idle path) per flow-size bucket, p50 and p99;
  - PFC PAUSE rate (new XOFFs sent per ms) per switch layer: ToR, leaf, spine;
  - victim-flow throughput: one paced flow per pod between hosts no workload flow touches, as a
    share of its offered rate (what PFC's spreading and the schemes' reactions take from it).
Prints the markdown tables; with --figures DIR writes the PNGs of docs/studies/realistic-workloads.md.

    .venv/bin/python tools/realistic_study.py --store study.sqlite --figures docs/studies/img
    .venv/bin/python tools/realistic_study.py --smoke     (a tiny fabric, seconds: the CTest smoke test)
    .venv/bin/python tools/realistic_study.py --report-only --store study.sqlite   (tables again, no runs)

Run the full study under /tmp/lk (or flock) on a shared machine: it is CPU-heavy.
"""

import argparse
import os
import re
import sys
import tempfile
import time

import numpy as np
import pandas as pd

import sluice
from sluice import traffic

SCHEMES = ["none", "dcqcn", "timely", "qcn", "pcn", "dcqcn+tcd"]
WORKLOADS = {"W1": "websearch", "W2": "fb-hadoop"}
# Flow-size buckets (bytes, upper bounds). The paper's Table 1 bounds are not in our copy of it;
# these split both CDFs where their bytes and counts separate (docs/studies/realistic-workloads.md).
BUCKETS = [("S", 10e3), ("M", 100e3), ("L", 1e6), ("XL", float("inf"))]
LAYERS = {"t": "ToR", "l": "leaf", "s": "spine"}
HOST = re.compile(r"h(\d+)_(\d+)_(\d+)$")
PIPELINE_NS, MTU = 500, 1000  # the switches' default pipeline; the study's MTU (the paper's 1 KB)


def fabric_hosts(pods, tors, hosts):
    return [f"h{p}_{t}_{i}" for p in range(pods) for t in range(tors) for i in range(hosts)]


def victims(pods, hosts):
    """(src, dst): from the last host of ToR 0 in pod p to the one before it in pod p + 1, across
    the spines; no workload flow starts or ends at these hosts."""
    return [(f"h{p}_0_{hosts - 1}", f"h{(p + 1) % pods}_0_{hosts - 2}") for p in range(pods)]


def clos_scenario(workload, pods=8, tors=4, hosts=8, spines=8, arrivals="20ms", victim_rate_gbps=5.0,
                  load=0.6, fan_in_max=15):
    """The study's scenario: the pcn-clos platform, incast events with sizes from `workload` (a
    CDF name), the victim flows, the paper's PFC settings (static 512 KB XOFF) and 1 KB MTU."""
    reserved = {h for pair in victims(pods, hosts) for h in pair}
    busy = [h for h in fabric_hosts(pods, tors, hosts) if h not in reserved]
    arrivals_s = pd.Timedelta(arrivals).total_seconds()
    victim_bytes = int(victim_rate_gbps * 1e9 * arrivals_s / 8)
    flows = [traffic.incast(busy, busy, load=load, stop=arrivals, cdf=workload, fan_in=(1, min(fan_in_max, len(busy) - 1)),
                            priority=3)]
    flows += [{"kind": "finite", "src": s, "dst": d, "size": f"{victim_bytes}B", "rate": f"{victim_rate_gbps}Gbps",
               "priority": 3} for s, d in victims(pods, hosts)]
    return {
        "name": f"realistic-{workload}",
        "platform": {"kind": "pcn-clos", "pods": pods, "leaves": 2, "tors": tors, "hosts": hosts, "spines": spines},
        "traffic": flows,
        "run": {"sample_period": "1ms"},
        "params": {"*.mtu": f"{MTU}B", "*.mmu.threshold": "static", "*.pfc.xoff": "512KB"},
    }


def run_metrics(result):
    """Per run, in the worker: new XOFFs per layer, the victims' throughput, flows completed."""
    ports = result.ports
    row = {}
    for prefix, layer in LAYERS.items():
        row[f"pauses_{layer}"] = int(ports[ports.node.str.startswith(prefix)].pause_sent.sum())
    f = result.flows
    v = f[~f.index.str.contains("#")]  # the victims: the only flows not drawn by a pattern
    row["victim_gbps"] = float(v.throughput_bps.mean() / 1e9) if len(v) else float("nan")
    drawn = f[f.index.str.contains("#")]
    row["flows"], row["completed"] = len(drawn), int(drawn.completed.sum())
    row["pause_frames"] = result.totals["pause_frames"]
    return row


def ideal_ns(size, src, dst):
    """The flow alone on its idle path: propagation and pipeline per hop, the first frame's
    serialization on every link (10 Gb/s at the hosts, 40 above), the rest at 10 Gb/s."""
    a, b = HOST.match(src).groups(), HOST.match(dst).groups()
    rates = [10, 10] if a[:2] == b[:2] else [10, 40, 40, 10] if a[0] == b[0] else [10, 40, 40, 40, 40, 10]
    first = min(size, MTU)
    return len(rates) * 5000 + (len(rates) - 1) * PIPELINE_NS + sum(first * 8 / r for r in rates) + (size - first) * 8 / 10


def slowdowns(flows, sim_ns):
    """Every drawn flow's FCT and slowdown; a flow still running at the end counts with its
    elapsed time (a lower bound: censored), so a scheme that leaves large flows unfinished is
    not flattered."""
    d = flows[flows.index.str.contains("#")]
    fct = d.fct_ns.where(d.completed.astype(bool), sim_ns - d.start_ns)
    ideal = [ideal_ns(s, a, b) for s, a, b in zip(d.size_bytes, d.src, d.dst)]
    return pd.DataFrame({"size": d.size_bytes.to_numpy(), "fct_ns": fct.to_numpy(), "slowdown": (fct / ideal).to_numpy(),
                         "censored": (~d.completed.astype(bool)).to_numpy()})


def bucket_of(size):
    return next(name for name, top in BUCKETS if size <= top)


def summarize(df, store_path, sim_ns):
    """Pools every seed's flows per (workload, scheme): slowdown p50/p99 per bucket, and each
    pair's FCT over all its flows (mean, p99; censored as above) as columns of df."""
    rows = []
    with sluice.store.open(store_path) as db:
        for (w, cc), group in df.groupby(["workload", "cc"], sort=False):
            s = pd.concat([slowdowns(db.flows(r), sim_ns) for r in group.run_id])
            df.loc[group.index, "mean_fct_ms"] = s.fct_ns.mean() / 1e6
            df.loc[group.index, "p99_fct_ms"] = s.fct_ns.quantile(0.99) / 1e6
            s["bucket"] = [bucket_of(x) for x in s["size"]]
            for name, _ in BUCKETS:
                b = s[s.bucket == name]
                rows.append({"workload": w, "cc": cc, "bucket": name, "flows": len(b),
                             "censored": int(b.censored.sum()),
                             "p50": b.slowdown.median() if len(b) else np.nan,
                             "p99": b.slowdown.quantile(0.99) if len(b) else np.nan})
    return pd.DataFrame(rows)


def pause_rates(df):
    """PAUSEs per ms of arrivals (the load is offered then; the drain after adds few), by layer."""
    ms = df.arrivals.map(lambda t: pd.Timedelta(t).total_seconds() * 1e3)
    for layer in LAYERS.values():
        df[f"pause_per_ms_{layer}"] = df[f"pauses_{layer}"] / ms
    return df


def print_tables(df, buckets, victim_gbps):
    label = {v: k for k, v in WORKLOADS.items()}
    print("\n### FCT slowdown by flow size (p50 / p99, pooled over seeds; censored flows in brackets)\n")
    print("| workload | scheme | " + " | ".join(f"{b} (≤ {t / 1e3:g} KB)" if t < float("inf") else f"{b} (> 1 MB)"
                                          for b, t in BUCKETS) + " |")
    print("|---|---|" + "---|" * len(BUCKETS))
    for (w, cc), g in buckets.groupby(["workload", "cc"], sort=False):
        cells = [f"{r.p50:.1f} / {r.p99:.1f}" + (f" [{r.censored}]" if r.censored else "") + f" ({r.flows})"
                 for r in g.itertuples()]
        print(f"| {label.get(w, w)} | {cc} | " + " | ".join(cells) + " |")
    print("\n### PFC PAUSEs per ms of arrivals per layer, victim throughput, FCT over all flows (mean over seeds)\n")
    print("| workload | scheme | ToR | leaf | spine | all | victim Gb/s (of " + f"{victim_gbps:g}) | flows completed | "
          "FCT mean / p99 (ms) |")
    print("|---|---|---|---|---|---|---|---|---|")
    mean = df.groupby(["workload", "cc"], sort=False).mean(numeric_only=True)
    for (w, cc), r in mean.iterrows():
        layers = [r[f"pause_per_ms_{x}"] for x in LAYERS.values()]
        print(f"| {label.get(w, w)} | {cc} | " + " | ".join(f"{x:.1f}" for x in layers) + f" | {sum(layers):.1f} | "
              f"{r.victim_gbps:.2f} | " + (f"{r.completed / r.flows:.3f} |" if r.flows else "no flows |") +
              f" {r.mean_fct_ms:.2f} / {r.p99_fct_ms:.1f} |")


def figures(df, buckets, out, victim_gbps):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out, exist_ok=True)
    label = {v: k for k, v in WORKLOADS.items()}
    schemes = list(dict.fromkeys(df.cc))
    for w in dict.fromkeys(df.workload):
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=False)
        b = buckets[buckets.workload == w]
        x = np.arange(len(BUCKETS))
        width = 0.8 / len(schemes)
        for i, cc in enumerate(schemes):
            g = b[b.cc == cc]
            for ax, q in zip(axes, ("p50", "p99")):
                ax.bar(x + i * width, g[q], width, label=cc)
        for ax, q in zip(axes, ("median", "99th percentile")):
            ax.set_xticks(x + 0.4 - width / 2, [n for n, _ in BUCKETS])
            ax.set_yscale("log")
            ax.set_title(f"{label.get(w, w)} ({w}): FCT slowdown, {q}")
            ax.set_xlabel("flow size bucket")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"realistic-slowdown-{label.get(w, w)}.png"), dpi=110)
        plt.close(fig)
    mean = df.groupby(["workload", "cc"], sort=False).mean(numeric_only=True)
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for ax, w in zip(axes, dict.fromkeys(df.workload)):
        m = mean.loc[w].reindex(schemes)
        bottom = np.zeros(len(schemes))
        for layer, hatch in zip(LAYERS.values(), ("", "//", "..")):
            v = m[f"pause_per_ms_{layer}"].to_numpy()
            ax.bar(schemes, v, bottom=bottom, hatch=hatch, edgecolor="black", label=layer)
            bottom += v
        ax.set_title(f"{label.get(w, w)} ({w}): PFC PAUSEs per ms of arrivals, by layer")
        ax.tick_params(axis="x", labelsize=8)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "realistic-pause-by-layer.png"), dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    x = np.arange(len(schemes))
    for i, w in enumerate(dict.fromkeys(df.workload)):
        ax.bar(x + i * 0.4, mean.loc[w].reindex(schemes).victim_gbps, 0.4, label=label.get(w, w))
    ax.axhline(victim_gbps, color="gray", linestyle="--", linewidth=1)
    ax.set_xticks(x + 0.2, schemes)
    ax.set_ylabel("victim throughput (Gb/s)")
    ax.set_title(f"Victim flows (offered {victim_gbps:g} Gb/s each)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "realistic-victims.png"), dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", help="results store to append to (default: a temporary file)")
    ap.add_argument("--schemes", default=",".join(SCHEMES))
    ap.add_argument("--workloads", default="W1,W2", help="W1 (websearch), W2 (fb-hadoop)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--arrivals", default="20ms", help="incast events arrive in [0, this)")
    ap.add_argument("--until", default="50ms", help="simulated time (the drain after the arrivals)")
    ap.add_argument("--pods", type=int, default=8)
    ap.add_argument("--tors", type=int, default=4)
    ap.add_argument("--hosts", type=int, default=8, help="per ToR (8: 1:1 at the ToR; the paper's count is 16)")
    ap.add_argument("--spines", type=int, default=8)
    ap.add_argument("--set", action="append", default=[], metavar="PATTERN=VALUE",
                    help="a parameter override for every run (repeatable), e.g. 'h*.np.period=120us'")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dask", help="a Dask scheduler's address: run the points there")
    ap.add_argument("--figures", help="write the PNGs here")
    ap.add_argument("--report-only", action="store_true", help="no runs: report the study already in --store")
    ap.add_argument("--smoke", action="store_true", help="a tiny fabric and 1 ms: seconds (the CTest smoke test)")
    a = ap.parse_args()
    if a.smoke:
        a.pods, a.tors, a.hosts, a.spines = 2, 2, 5, 2
        a.arrivals, a.until, a.seeds, a.schemes = "300us", "1ms", "1", "none,pcn"
        a.workloads = "W2"
    store = a.store or os.path.join(tempfile.mkdtemp(prefix="realistic_"), "study.sqlite")
    grid = {"workload": [WORKLOADS[w] for w in a.workloads.split(",")], "cc": a.schemes.split(","),
            "pods": a.pods, "tors": a.tors, "hosts": a.hosts, "spines": a.spines, "arrivals": a.arrivals,
            "until": a.until}
    t0 = time.perf_counter()
    if a.report_only:
        with sluice.store.open(store) as db:
            runs = db.runs()
        tags = pd.json_normalize(list(runs.tags))
        df = pd.concat([runs[["id"]].rename(columns={"id": "run_id"}), tags], axis=1)
        metrics = [run_metrics(_stored_result(store, r)) for r in df.run_id]
        df = pd.concat([df, pd.DataFrame(metrics)], axis=1)
    else:
        df = sluice.sweep(clos_scenario, grid=grid, seeds=[int(s) for s in a.seeds.split(",")], metrics=run_metrics,
                          set=dict(kv.split("=", 1) for kv in a.set), workers=a.workers, client=a.dask, store=store, progress=not a.smoke)
        if df.error.notna().any():
            print(df[df.error.notna()][["workload", "cc", "seed", "error"]].to_string(), file=sys.stderr)
            sys.exit(1)
    wall = time.perf_counter() - t0
    df = pause_rates(df)
    sim_ns = pd.Timedelta(a.until).total_seconds() * 1e9
    buckets = summarize(df, store, sim_ns)
    print(f"{len(df)} runs ({a.pods} pods x {a.tors} ToRs x {a.hosts} hosts, arrivals {a.arrivals}, until {a.until}, "
          f"seeds {a.seeds}) in {wall:.0f} s wall; store {store}")
    print_tables(df, buckets, 5.0)
    if a.figures:
        figures(df, buckets, a.figures, 5.0)
    if a.smoke:  # what the CTest smoke test checks: every run measured, every table and figure made
        assert len(df) == 2 and (df.completed > 0).all() and (df.victim_gbps > 0).all(), df
        assert buckets.flows.sum() == df.flows.sum(), buckets
        if a.figures:
            for name in ("slowdown-W2", "pause-by-layer", "victims"):
                assert os.path.getsize(os.path.join(a.figures, f"realistic-{name}.png")) > 0, name


def _stored_result(store, run_id):
    """A stored run as what run_metrics reads (Result's totals, ports, flows)."""
    class Stored:
        pass

    with sluice.store.open(store) as db:
        r = Stored()
        r.totals, r.ports, r.flows = db.totals(run_id), db.ports(run_id), db.flows(run_id)
    return r


if __name__ == "__main__":
    main()
