#!/usr/bin/env python3
"""The PFC congestion tree of pcn-basic (PCN paper, NSDI'20, Fig. 1-2), end to end from Python.

Runs scenarios/pcn-basic.yaml, probes the queue of sw0's port towards sw1 every 100 us from a
callback, and draws: the pause timeline per port (the tree growing at
1 ms and draining about 3.1 ms later), queue and link rate over time, the queue/rate phase plane
of sw0's port towards sw1, and the probes.

    .venv/bin/python examples/pcn_congestion_tree.py [--until 7ms] [--out out/python/pcn-basic]
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import sluice  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--until", default="7ms")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "out" / "python" / "pcn-basic"))
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    sim = sluice.Simulation(ROOT / "scenarios" / "pcn-basic.yaml", seed=args.seed)
    sim.every("100us", lambda s: s.counter("sw0.port2.prio3.queue_bytes"), name="sw0_to_sw1_queue")
    result = sim.run(until=args.until)
    print(result)

    f0 = result.timeseries("flow")["h0->r0"]
    before, during = f0[(f0.index > 500) & (f0.index <= 1000)].mean(), f0[(f0.index > 1500) & (f0.index <= 3500)].mean()
    tree = result.summary["congestion_tree"]
    print(f"victim F0 (h0->r0): {before:.1f} Gb/s before the bursts, {during:.1f} Gb/s while the tree stands")
    print(f"congestion tree: up to {tree['max_ports_paused']} paused ports (at {tree['max_ports_paused_at_us']:.0f} us)")

    ax = sluice.plots.pause_heatmap(result)
    ax.set_title("pcn-basic: PFC pause per port and priority")
    ax.figure.savefig(out / "pause_timeline.png", dpi=120, bbox_inches="tight")
    sluice.plots.queue_and_rate(result, links=["sw0->sw1", "sw1->r0", "sw1->r1"]).savefig(out / "queue_and_rate.png", dpi=120)
    ax = sluice.plots.phase_plane(result, queue="sw0.port2.p3")
    ax.figure.savefig(out / "phase_plane.png", dpi=120, bbox_inches="tight")
    fig, ax = plt.subplots()
    (result.probe("sw0_to_sw1_queue") / 1e3).plot(ax=ax, label="sw0 -> sw1 queue (KB), from a callback")
    f0.plot(ax=ax, secondary_y=True, label="F0 throughput (Gb/s)")
    ax.set_xlabel("time (us)")
    fig.legend(loc="upper right")
    fig.savefig(out / "victim.png", dpi=120, bbox_inches="tight")
    print(f"plots written to {out}/")


if __name__ == "__main__":
    main()
