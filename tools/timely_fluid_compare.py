#!/usr/bin/env python3
"""TIMELY from a 7 : 3 start, original and patched: Sluice's rate law against the CoNEXT'16 fluid model.

Sluice: the reaction point's state machine (timely_rp_state) in the unit test's two-flow fluid
bottleneck (TimelyRp.FromASevenToThreeStartTheOriginalStaysUnfairAndPatchedConverges: C = 10 Gb/s,
base RTT 20 us, 16 000-B segments, RTT = base + q/C, no feedback delay, steps of 0.5 us); the
tool runs TimelyRp.TwoFlowTrajectoriesForTheFluidComparison of build/tests/unit_tests, which
writes that test's trajectories.

Fluid: the TIMELY fluid model of Zhu, Ghobadi, Misra, Padhye, "ECN or Delay", CoNEXT 2016, as the
authors' MATLAB has it (github.com/jitupadhye-zz/rdma, fluidmodel/timely/fluid_timely.m for the
original, timely-fixed.m for patched TIMELY): per flow a rate R and an RTT gradient g,

    dq/dt = sum R - C                                          (q >= 0)
    dR/dt = step(R, RTT, g) / tau(R),  tau = max(Seg/R, minRTT) (CoNEXT'16 eq. 14)
    dg/dt = alpha (-g + (q(t) - q(t - tau)) / (C minRTT)) / tau(R)
    original: step = delta below T_low; -beta (1 - T_high/RTT) R above T_high;
              delta if g <= 0, else -beta g R
    patched:  between T_low and T_high, step = delta (1 - w(g)) - beta_p w(g) e R,
              w(g) = clamp((g + 1/4) / (1/2), 0, 1), e = (RTT - RTT_ref) / RTT_ref

with the same parameters and RTT = base + q/C as the Sluice run (the MATLAB sets its thresholds
on q/C alone, RTT_ref = T_low, a feedback delay q/C + MTU/C + 4 us and, in fluid_timely.m,
tau = Seg/R; --authors-interval uses Seg/R). The model has no hyper-active increase (N = 1);
Sluice's rate law adds 5 delta from the 5th non-positive gradient in a row.

Prints the rates at a few times (with --check, fails if any differs from the model's by more
than 0.25 Gb/s: Tools.TimelyFluidCompareAgrees) and, with --img, draws the figure of
docs/models/timely.md:

    .venv/bin/python tools/timely_fluid_compare.py --img docs/models/img/timely-fluid.png
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

C, BASE, SEG, MIN_RTT = 10e9, 20e-6, 128000.0, 20e-6
DELTA, BETA, ALPHA, T_LOW, T_HIGH = 10e6, 0.8, 0.875, 50e-6, 500e-6
RTT_REF, BETA_P = 100e-6, 0.008


def sluice_trajectories(unit_tests):
    """The state machine's trajectories: {variant: [(t_ms, r1, r2, q_bits)]}."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "timely.csv")
        env = dict(os.environ, SLUICE_TIMELY_TRAJECTORY=path, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        subprocess.run([unit_tests, "--gtest_filter=TimelyRp.TwoFlowTrajectoriesForTheFluidComparison"], env=env,
                       check=True, stdout=subprocess.DEVNULL)
        out = {}
        with open(path) as f:
            for row in csv.DictReader(f):
                out.setdefault(row["variant"], []).append(
                    (float(row["t_us"]) / 1e3, float(row["r1"]), float(row["r2"]), float(row["q_bits"])))
        return out


def weight(g):
    return min(1.0, max(0.0, (g + 0.25) / 0.5))


def fluid(variant, r0, span_s, dt=0.5e-6, every_s=100e-6, authors_interval=False):
    """Euler steps of the fluid model; [(t_ms, r1, r2, q_bits)] every `every_s`."""
    rates, grads, q = list(r0), [0.0] * len(r0), 0.0
    hist = [0.0]  # q at each step, for q(t - tau)
    out, steps, every = [], int(round(span_s / dt)), int(round(every_s / dt))
    for k in range(steps):
        if k % every == 0:
            out.append((k * dt * 1e3, rates[0], rates[1], q))
        rtt = BASE + q / C
        new_rates = []
        for i, r in enumerate(rates):
            tstar = max(SEG / r, MIN_RTT)  # the gradient's span (fluid_delays.m)
            tau = SEG / r if authors_interval else tstar
            lag = min(len(hist) - 1, int(round(tstar / dt)))
            g = grads[i]
            if rtt < T_LOW:
                step = DELTA
            elif rtt > T_HIGH:
                step = -BETA * (1 - T_HIGH / rtt) * r
            elif variant == "patched":
                w = weight(g)
                step = DELTA * (1 - w) - BETA_P * w * (rtt - RTT_REF) / RTT_REF * r
            else:
                step = DELTA if g <= 0 else -BETA * g * r
            if r >= C and step > 0:
                step = 0.0
            grads[i] = g + dt * ALPHA * (-g + (q - hist[-1 - lag]) / (C * MIN_RTT)) / tau
            new_rates.append(min(C, max(0.01 * C, r + dt * step / tau)))  # the floor: timely.min_rate
        q = max(0.0, q + (sum(rates) - C) * dt)
        rates = new_rates
        hist.append(q)
    return out


def at(traj, t_ms):
    return min(traj, key=lambda row: abs(row[0] - t_ms))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unit-tests", default="build/tests/unit_tests")
    ap.add_argument("--img", help="write the figure here (PNG)")
    ap.add_argument("--authors-interval", action="store_true", help="tau = Seg/R as fluid_timely.m (not eq. 14)")
    ap.add_argument("--check", type=float, nargs="?", const=0.25, metavar="GBPS",
                    help="fail unless every rate of the table is within this of the model's (default 0.25 Gb/s)")
    args = ap.parse_args()

    sim = sluice_trajectories(args.unit_tests)
    model = {v: fluid(v, (7e9, 3e9), (sim[v][-1][0] + 0.1) / 1e3, authors_interval=args.authors_interval)
             for v in ("original", "patched")}
    print("variant   t (ms)   Sluice r1 / r2 (Gb/s)   fluid r1 / r2 (Gb/s)")
    worst = 0.0
    for v in ("original", "patched"):
        for t in (5, 50, 100, 200, 300):
            if t > sim[v][-1][0] + 0.2:
                continue
            s, m = at(sim[v], t), at(model[v], t)
            worst = max(worst, abs(s[1] - m[1]) / 1e9, abs(s[2] - m[2]) / 1e9)
            print(f"{v:9s} {t:6d}   {s[1] / 1e9:6.3f} / {s[2] / 1e9:6.3f}          {m[1] / 1e9:6.3f} / {m[2] / 1e9:6.3f}")
    print(f"largest difference: {worst:.3f} Gb/s")
    if args.check is not None and worst > args.check:
        print(f"error: Sluice and the fluid model differ by {worst:.3f} Gb/s, more than {args.check}", file=sys.stderr)
        return 1

    if not args.img:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, v in zip(axes, ("original", "patched")):
        for traj, style, who in ((sim[v], "-", "Sluice rate law"), (model[v], "--", "fluid model")):
            t = [row[0] for row in traj]
            ax.plot(t, [row[1] / 1e9 for row in traj], "C0" + style, label=f"{who}: flow 1 (7 Gb/s start)")
            ax.plot(t, [row[2] / 1e9 for row in traj], "C1" + style, label=f"{who}: flow 2 (3 Gb/s start)")
        ax.set_title(f"{v} TIMELY, 2 flows, C = 10 Gb/s")
        ax.set_xlabel("time (ms)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("rate (Gb/s)")
    axes[0].set_ylim(0, 10)
    axes[1].legend(fontsize=8, loc="center right")
    fig.tight_layout()
    fig.savefig(args.img, dpi=110)
    print("wrote", args.img)


if __name__ == "__main__":
    sys.exit(main())
