"""Sluice from Python: a study as a short script.

    import sluice
    sim = sluice.Simulation("scenarios/incast.yaml", seed=7, set={"sw0.port*.pfc.xoff": "96KiB"})
    sim.at("2ms", lambda s: s.link("sw0->r0").set_rate("10Gbps"))
    sim.every("100us", lambda s: s.counter("sw0.port16.prio3.queue_bytes"), name="q")
    result = sim.run(until="10ms")
    result.timeseries("queue"); result.flows; result.probe("q")
    sluice.sweep("scenarios/incast.yaml", grid={"sw0.port*.pfc.headroom": ["4KiB", "8KiB"]}, seeds=[1, 2],
                 store="runs.sqlite")
    sluice.store.open("runs.sqlite").runs()

Every run elaborates in a child process of its own (SystemC elaborates once per process). See
docs/python.md.
"""

from . import store, traffic
from ._child import ChildDied
from .simulation import SERIES_NAMES, Fabric, Result, ScenarioText, Simulation, fabric, params, stats
from .sweep import DEFAULT_METRICS, run_point, sweep


def __getattr__(name):
    # sluice.plots imports matplotlib: only when asked for (sweep workers never are).
    if name == "plots":
        import importlib

        return importlib.import_module(".plots", __name__)
    raise AttributeError(f"module 'sluice' has no attribute {name!r}")

__all__ = [
    "ChildDied",
    "DEFAULT_METRICS",
    "Fabric",
    "Result",
    "SERIES_NAMES",
    "ScenarioText",
    "Simulation",
    "fabric",
    "params",
    "plots",
    "run_point",
    "stats",
    "store",
    "sweep",
    "traffic",
]
