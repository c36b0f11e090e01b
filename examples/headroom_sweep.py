#!/usr/bin/env python3
"""Where drops begin: a PFC headroom x XOFF sweep on the incast, the buffer-sizing study run
before silicon, end to end from Python.

scenarios/incast.yaml with static XOFF thresholds: 16 senders at 10 Gb/s into one 40 Gb/s port
pause at XOFF, and what is already on the wire when the XOFF goes out must fit in the headroom.
The sweep runs every (headroom, XOFF, seed) point in parallel (locally, or on a Dask cluster
with --dask ADDRESS) and plots lossless drops against headroom, one line per XOFF, with the
model's derived default headroom (2 x delay x rate + response x rate + 3 max frames + 64 B)
marked.

    .venv/bin/python examples/headroom_sweep.py [--dask tcp://scheduler:8786] [--out out/python/headroom]
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import sluice  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEADROOMS_KIB = [0, 1, 2, 3, 4, 5, 6, 8, 10, 13, 16]
XOFFS = ["16KiB", "48KiB", "96KiB"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--until", default="1ms")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--dask", help="address of a Dask scheduler (default: local processes)")
    ap.add_argument("--out", default=str(ROOT / "out" / "python" / "headroom"))
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scenario = ROOT / "scenarios" / "incast.yaml"

    derived = sluice.params(scenario, match="sw0.port0.pfc.headroom").value[0]
    grid = {"sw0.port*.pfc.headroom": [f"{h}KiB" for h in HEADROOMS_KIB], "sw0.port*.pfc.xoff": XOFFS}
    df = sluice.sweep(scenario, grid=grid, seeds=list(range(1, args.seeds + 1)), until=args.until,
                      set={"sw0.mmu.threshold": "static"}, client=args.dask)
    df.to_csv(out / "sweep.csv", index=False)
    failed = df[df.error.notna()]
    if len(failed):
        print(failed[["sw0.port*.pfc.headroom", "sw0.port*.pfc.xoff", "seed", "error"]].to_string(index=False))
    df["headroom_kib"] = df["sw0.port*.pfc.headroom"].str.removesuffix("KiB").astype(float)
    table = df.groupby(["sw0.port*.pfc.xoff", "headroom_kib"]).lossless_drops.mean().unstack(0)
    print(f"mean lossless drops per run ({args.until}, {args.seeds} seeds); derived default headroom {derived}:")
    print(table.to_string())
    for xoff in XOFFS:
        safe = table.index[table[xoff] == 0]
        print(f"XOFF {xoff}: no drops from {safe.min():g} KiB of headroom" if len(safe) else f"XOFF {xoff}: drops at every headroom")

    fig, ax = plt.subplots()
    for xoff in XOFFS:
        ax.plot(table.index, table[xoff], marker="o", label=f"XOFF {xoff}")
    ax.axvline(float(derived.removesuffix("KiB")), color="0.5", linestyle=":", label=f"derived default {derived}")
    ax.set_xlabel("PFC headroom per priority group (KiB)")
    ax.set_ylabel(f"lossless drops per run ({args.until})")
    ax.set_title("incast, static XOFF: where drops begin")
    ax.legend()
    fig.savefig(out / "drops_vs_headroom.png", dpi=120, bbox_inches="tight")
    print(f"sweep.csv and drops_vs_headroom.png written to {out}/")


if __name__ == "__main__":
    main()
