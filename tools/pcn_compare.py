#!/usr/bin/env python3
"""The PCN paper's section 3 comparison on scenarios/pcn-basic.yaml: one run per congestion-control
scheme (--cc), a table of the metrics and a plot of the long flows' throughput, written into
docs/models/pcn.md between its "pcn-compare" markers and docs/models/img/pcn-basic-compare.png.

usage: flock /tmp/sluice-build.lock .venv/bin/python tools/pcn_compare.py [--sluice build/platforms/sluice]
           [--until 30ms] [--out out/pcn-compare] [--no-docs]

Schemes: none (PFC only), qcn, dcqcn, timely (also with delta 40 Mb/s), pcn, dcqcn+tcd, ecm, each run if `sluice run --cc`
knows the name (the others are listed as pending). Metrics, per scheme (seed 1):
  - PFC frames in all, and per link direction: sw1 -> sw0 (the tree reaching past the root switch),
    sw0 -> h0 (towards the victim's sender), sw0 -> h1, sw1 -> h2..h15 (the burst senders);
  - tree lifetime: time from 1 ms during which sw0's port towards sw1 was paused (sum of the
    paused fraction of its samples x the sample period), and the most ports paused at once;
  - F0 (the victim h0 -> r0) and F1 (h1 -> r1) mean throughput while the bursts last (from 1.2 ms
    to the last burst flow's completion);
  - recovery after the bursts: from the last burst completion to the first sample where sw0 -> sw1
    carries >= 95 % of 40 Gb/s, and to the first sample from which F0 and F1 stay within +-10 %
    of their 20 Gb/s share for 200 us ("never" within the run).
"""
import argparse
import json
import os
import re
import subprocess
import sys

import pandas as pd

SCHEMES = ["none", "qcn", "dcqcn", "timely", "timely-delta40", "pcn", "dcqcn+tcd", "ecm"]
# Variants: a row name -> (--cc scheme, extra arguments). TIMELY's delta at the paper's 10 Gb/s
# (10 Mb/s) and scaled to these 40 Gb/s links as docs/models/cc-study.md does.
VARIANTS = {"timely-delta40": ("timely", ["--set", "h*.timely.delta=40Mbps"])}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- pcn-compare:begin -->", "<!-- pcn-compare:end -->"


def known_schemes(sluice):
    """The --cc names the binary knows, from its one-line error for an unknown one."""
    r = subprocess.run([sluice, "run", os.path.join(ROOT, "scenarios/pcn-basic.yaml"), "--cc", "?", "-q"],
                       capture_output=True, text=True)
    m = re.search(r"is not one of \{([^}]*)\}", r.stdout + r.stderr)
    if not m:
        sys.exit("pcn_compare: cannot read the scheme names from: " + (r.stdout + r.stderr).strip())
    return [s.strip() for s in m.group(1).split(",")]


def run(sluice, scheme, until, out):
    d = os.path.join(out, scheme.replace("+", "-"))
    cc, extra = VARIANTS.get(scheme, (scheme, []))
    subprocess.run([sluice, "run", os.path.join(ROOT, "scenarios/pcn-basic.yaml"), "--cc", cc, "--until", until,
                    "-q", "--out", d] + extra, check=True)
    return d


def pauses_sent(summary, node, peers):
    return sum(p["pause_sent"] for p in summary["ports"] if p["node"] == node and p["peer"] in peers)


def first_time(times, ok, after, hold_us=0.0):
    """First sample time > after from which ok(i) holds for every sample within hold_us."""
    idx = [i for i, t in enumerate(times) if t > after]
    for k, i in enumerate(idx):
        window = [j for j in idx[k:k + 1000] if times[j] - times[i] <= hold_us]
        if times[window[-1]] - times[i] >= hold_us and all(ok(j) for j in window):
            return times[i]
    return None


def metrics(d):
    s = json.load(open(os.path.join(d, "summary.json")))
    f = pd.read_csv(os.path.join(d, "flow_throughput.csv"))
    p = pd.read_csv(os.path.join(d, "paused_fraction.csv"))
    link = pd.read_csv(os.path.join(d, "link_throughput.csv"))
    period_us = f.time_us.iloc[1] - f.time_us.iloc[0]
    bursts = [fl for fl in s["flows"] if fl["kind"] == "finite"]
    end_us = max(fl["last_rx_ns"] for fl in bursts) / 1e3 if all(fl["completed"] for fl in bursts) else None
    during = (f.time_us > 1200) & (f.time_us <= (end_us or f.time_us.iloc[-1]))
    after = end_us or f.time_us.iloc[-1]
    t = list(f.time_us)
    link_ok = first_time(list(link.time_us), lambda i: link["sw0->sw1"].iloc[i] >= 0.95 * 40, after)
    fair = first_time(t, lambda i: abs(f["h0->r0"].iloc[i] - 20) <= 2 and abs(f["h1->r1"].iloc[i] - 20) <= 2,
                      after, hold_us=200)
    burst_senders = {f"h{i}" for i in range(2, 16)}
    return {
        "pfc": s["totals"]["pause_frames"],
        "sw1->sw0": pauses_sent(s, "sw1", {"sw0"}),
        "sw0->h0": pauses_sent(s, "sw0", {"h0"}),
        "sw0->h1": pauses_sent(s, "sw0", {"h1"}),
        "sw1->bursts": pauses_sent(s, "sw1", burst_senders),
        "tree_us": float((p.loc[p.time_us > 1000, "sw0.port2.p3"] * period_us).sum()),
        "max_paused": s["congestion_tree"]["max_ports_paused"],
        "f0": float(f.loc[during, "h0->r0"].mean()),
        "f1": float(f.loc[during, "h1->r1"].mean()),
        "bursts_end_us": end_us,
        "link_recovery_us": None if link_ok is None else link_ok - after,
        "fair_recovery_us": None if fair is None else fair - after,
        "feedback": s["totals"]["cnp_frames"] + s["totals"]["cnm_frames"],
        "drops": s["totals"]["drops"],
    }, f


def fmt_us(v):
    return "never" if v is None else f"{v / 1000:.2f} ms"


def table(rows, pending):
    names = {"none": "PFC only", "qcn": "QCN", "dcqcn": "DCQCN", "timely": "TIMELY", "pcn": "PCN",
             "dcqcn+tcd": "DCQCN+TCD", "ecm": "ECM", "timely-delta40": "TIMELY, δ 40 Mb/s"}
    out = ["| scheme (`--cc`) | PFC frames | sw1→sw0 | sw0→h0 | sw0→h1 | sw1→h2..h15 | sw0→sw1 paused from 1 ms | "
           "most ports paused | F0 / F1 during bursts (Gb/s) | bursts end | link ≥ 95 % after | F0, F1 ±10 % of 20 Gb/s after | CNP/CNM | drops |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for scheme, m in rows:
        cc = VARIANTS.get(scheme, (scheme, []))
        args = "`, `".join([cc[0]] + [a for a in cc[1] if a != "--set"])
        out.append(f"| {names[scheme]} (`{args}`) | {m['pfc']} | {m['sw1->sw0']} | {m['sw0->h0']} | {m['sw0->h1']} | "
                   f"{m['sw1->bursts']} | {m['tree_us'] / 1000:.2f} ms | {m['max_paused']} | {m['f0']:.1f} / {m['f1']:.1f} | "
                   f"{fmt_us(m['bursts_end_us'])} | {fmt_us(m['link_recovery_us'])} | {fmt_us(m['fair_recovery_us'])} | "
                   f"{m['feedback']} | {m['drops']} |")
    for scheme in pending:
        out.append(f"| {names[scheme]} (`{scheme}`) | pending: not in this build's `--cc` | | | | | | | | | | | | |")
    return "\n".join(out)


def plot(series, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(series), 1, figsize=(8, 1.9 * len(series)), sharex=True)
    for ax, (scheme, f) in zip(axes if len(series) > 1 else [axes], series):
        ax.plot(f.time_us / 1000, f["h0->r0"], label="F0 h0→r0 (victim)")
        ax.plot(f.time_us / 1000, f["h1->r1"], label="F1 h1→r1")
        ax.axvline(1.0, color="grey", lw=0.5)
        ax.set_ylim(0, 42)
        ax.set_ylabel("Gb/s")
        cc, extra = VARIANTS.get(scheme, (scheme, []))
        ax.set_title(" ".join(["--cc", cc] + extra), fontsize=9, loc="left")
    axes[0].legend(fontsize=8, loc="upper right")
    axes[-1].set_xlabel("time (ms); bursts start at 1 ms")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", default=os.path.join(ROOT, "build/platforms/sluice"))
    ap.add_argument("--until", default="30ms")
    ap.add_argument("--out", default=os.path.join(ROOT, "out/pcn-compare"))
    ap.add_argument("--no-docs", action="store_true", help="print the table only")
    a = ap.parse_args()
    known = known_schemes(a.sluice)
    available = [s for s in SCHEMES if VARIANTS.get(s, (s,))[0] in known]
    pending = [s for s in SCHEMES if s not in available]
    rows, series = [], []
    for scheme in available:
        m, f = metrics(run(a.sluice, scheme, a.until, a.out))
        rows.append((scheme, m))
        series.append((scheme, f))
    text = table(rows, pending)
    print(text)
    if a.no_docs:
        return
    img = os.path.join(ROOT, "docs/models/img/pcn-basic-compare.png")
    plot(series, img)
    page = os.path.join(ROOT, "docs/models/pcn.md")
    doc = open(page).read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"pcn_compare: {page} has no {BEGIN} ... {END} markers")
    block = (f"{BEGIN}\n_Generated by `tools/pcn_compare.py` (seed 1, `--until {a.until}`)._\n\n{text}\n\n"
             f"![F0 and F1 throughput per scheme](img/pcn-basic-compare.png)\n{END}")
    doc = doc[:doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
    open(page, "w").write(doc)


if __name__ == "__main__":
    main()
