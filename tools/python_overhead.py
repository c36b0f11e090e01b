#!/usr/bin/env python3
"""Python's per-run overhead: Simulation.run against whole `sluice run` processes, alternating,
on the same scenario and `until` (docs/python.md#how-a-run-is-isolated).

    PYTHONPATH=build/python:bindings/python .venv/bin/python tools/python_overhead.py \
        [--scenario scenarios/leaf-spine.yaml | --hosts 48] [--until 100us] [--runs 20]

Prints the median wall time of each (`sluice run -q`, `sluice run -q --out DIR`,
`Simulation.run`), the difference, and where Python's time goes: the empty fork of this
process, the child's native call (elaborate, run, summary, series), pickling its result, and
building the Result. --hosts N: a leaf-spine of 4 leaves x N/4 hosts at 100 Gb/s, every host
sending two 25 Gb/s flows to its counterpart on the next leaf (the issue's 48-host fabric).
"""
import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "build" / "python"), str(ROOT / "bindings" / "python")]
os.environ.setdefault("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1")

import sluice  # noqa: E402
from sluice import _child, simulation  # noqa: E402


def leaf_spine_yaml(hosts):
    per_leaf = hosts // 4
    lines = ["name: leaf-spine-%d" % hosts, "platform:", "  kind: leaf-spine", "  leaves: 4", "  spines: 4",
             f"  hosts: {per_leaf}", "  link_rate: 100Gbps", "  link_delay: 1us", "traffic:"]
    for leaf in range(4):
        for h in range(per_leaf):
            lines.append(f"  - {{kind: constant, src: h{leaf}_{h}, dst: h{(leaf + 1) % 4}_{h}, rate: 25Gbps, count: 2, "
                         "priority: 3}")
    return "\n".join(lines + ["run: {until: 2ms, seed: 1, sample_period: 10us}"]) + "\n"


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def child_parts(spec):
    """In the child: the native call, then pickling its result (what _child does)."""
    start = time.perf_counter()
    raw = simulation._run_native(spec, [], False)
    native = time.perf_counter()
    pickle.dumps(("ok", raw), protocol=pickle.HIGHEST_PROTOCOL)
    return raw, (native - start) * 1e3, (time.perf_counter() - native) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=str(ROOT / "scenarios" / "leaf-spine.yaml"))
    parser.add_argument("--hosts", type=int, help="a 100 Gb/s leaf-spine of this many hosts instead of --scenario")
    parser.add_argument("--until", default="100us")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sluice", default=str(ROOT / "build" / "platforms" / "sluice"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())
    scenario = args.scenario
    if args.hosts:
        scenario = str(work / f"leaf-spine-{args.hosts}.yaml")
        Path(scenario).write_text(leaf_spine_yaml(args.hosts))
    cli = [args.sluice, "run", scenario, "--until", args.until, "-q"]
    sim = sluice.Simulation(scenario)
    spec = simulation._run_spec(until=args.until, **sim._spec_args)
    times = {k: [] for k in ("cli", "cli_out", "python", "fork", "native", "pickle", "result")}
    for _ in range(args.runs):  # alternating, so that the machine's load falls on each alike
        times["cli"].append(timed(lambda: subprocess.run(cli, check=True)))
        times["python"].append(timed(lambda: sim.run(progress=False, until=args.until)))
        times["cli_out"].append(timed(lambda: subprocess.run(cli + ["--out", str(work / "out")], check=True)))
        times["fork"].append(timed(lambda: _child.call_in_child(int)))
        raw, native, pickling = _child.call_in_child(child_parts, spec)
        times["native"].append(native)
        times["pickle"].append(pickling)
        times["result"].append(timed(lambda: simulation.Result(raw, [], 0)))
    m = {k: statistics.median(v) for k, v in times.items()}
    print(f"{Path(scenario).name}, until {args.until}, medians of {args.runs} alternating runs:")
    print(f"  sluice run -q          {m['cli']:7.1f} ms")
    print(f"  sluice run -q --out    {m['cli_out']:7.1f} ms")
    print(f"  Simulation.run         {m['python']:7.1f} ms  ({m['python'] - m['cli']:+.1f} ms against -q, "
          f"{m['python'] - m['cli_out']:+.1f} ms against --out)")
    print(f"  of which: empty fork {m['fork']:.1f} ms, native call {m['native']:.1f} ms, pickling "
          f"{m['pickle']:.1f} ms, Result {m['result']:.1f} ms")


if __name__ == "__main__":
    main()
