"""Traffic groups of a scenario dict, by name and with their units: each function returns the
mapping a `traffic:` list holds (docs/scenarios.md#drawn-traffic-patterns-incast-permutation-all-to-all-ring-allreduce),
so a study writes

    scenario = {"platform": {"kind": "pcn-clos", "hosts": 8},
                "traffic": [sluice.traffic.incast("h*", "h*", load=0.6, stop="20ms", cdf="websearch")]}

The native loader checks the values when the run is built (a bad one is a ValueError naming the
key, e.g. `traffic[0].fan_in_max: '8' exceeds the 7 senders other than 'h0_0'`). Times, sizes and
rates are strings with units ("20ms", "64KB", "5Gbps"); loads are fractions of a link's rate.
Same seed, same flows: every drawn kind is seeded by the run's seed.
"""


def _group(kind, common, **keys):
    out = {"kind": kind}
    out.update({k: v for k, v in keys.items() if v is not None})
    out.update({k: v for k, v in common.items() if v is not None})
    return out


def _common(start, priority, cc):
    return {"start": start, "priority": priority, "cc": cc}


def workload(src, dst, cdf, load, stop, start=None, priority=None, cc=None):
    """Per source, a Poisson process of flows sized by `cdf` ("websearch", "fb-hadoop" or a
    file) at `load` (fraction, (0, 1]) of its link, each to a random NIC of `dst`."""
    return _group("workload", _common(start, priority, cc), src=src, dst=dst, cdf=cdf, load=load, stop=stop)


def incast(src, dst, load, stop, cdf=None, size=None, fan_in=(1, 15), start=None, priority=None, cc=None):
    """Per receiver of `dst`, a Poisson process of incast events at `load` of its link: each picks
    a fan-in k uniform in `fan_in` = (min, max) (counts, default the PCN paper's 1-15) and k
    distinct senders of `src`, each sending one flow sized by `cdf` or `size` (bytes)."""
    low, high = fan_in
    return _group("incast", _common(start, priority, cc), src=src, dst=dst, cdf=cdf, size=size, load=load,
                  fan_in_min=low, fan_in_max=high, stop=stop)


def permutation(hosts, size=None, rate=None, start=None, priority=None, cc=None):
    """Each host sends one flow to another and receives one (a seeded random derangement):
    finite flows of `size` bytes (paced at `rate` if given), or constant flows at `rate` alone."""
    return _group("permutation", _common(start, priority, cc), hosts=hosts, size=size, rate=rate)


def all_to_all(hosts, size=None, rate=None, start=None, priority=None, cc=None):
    """Every host sends one flow to every other: `size` bytes each, or constant at `rate`."""
    return _group("all-to-all", _common(start, priority, cc), hosts=hosts, size=size, rate=rate)


def ring_allreduce(hosts, size, order=None, iterations=None, interval=None, period=None, start=None, priority=None,
                   cc=None):
    """Ring all-reduces of a `size`-byte buffer: 2 (N - 1) synchronized steps, each member sending
    ceil(size / N) bytes to its successor at every step's start. order: "in-order" (default) or
    "shuffled" (seeded); interval: between steps (default: a chunk's time at the slowest
    member's link); period: between all-reduces (default: back to back)."""
    return _group("ring-allreduce", _common(start, priority, cc), hosts=hosts, size=size, order=order,
                  iterations=iterations, interval=interval, period=period)
