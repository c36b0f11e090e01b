"""sluice.traffic: the drawn traffic kinds as dict groups, run from Python; same seed, same flows."""

import pytest

import sluice
from sluice import traffic


def clos(groups):
    return {"name": "traffic-patterns",
            "platform": {"kind": "pcn-clos", "pods": 2, "tors": 2, "hosts": 4, "spines": 2},
            "traffic": groups, "params": {"*.mtu": "1000B"}}


GROUPS = [traffic.incast("h*", "h*", load=0.5, stop="200us", cdf="fb-hadoop", fan_in=(2, 6), priority=3),
          traffic.permutation("h0_*", size="64KB", start="10us", priority=3),
          traffic.ring_allreduce("h1_*", size="80KB", order="shuffled", priority=3)]


def drawn(seed):
    flows = sluice.Simulation(clos(GROUPS), seed=seed).run(until="300us", progress=False).flows
    return flows[["src", "dst", "size_bytes", "start_ns"]]


def test_groups_are_the_scenario_keys():
    assert traffic.incast("h*", "r0", load=0.6, stop="1ms", size="64KB") == {
        "kind": "incast", "src": "h*", "dst": "r0", "size": "64KB", "load": 0.6, "fan_in_min": 1, "fan_in_max": 15,
        "stop": "1ms"}
    assert traffic.all_to_all(["a", "b"], rate="5Gbps", priority=3) == {
        "kind": "all-to-all", "hosts": ["a", "b"], "rate": "5Gbps", "priority": 3}


def test_same_seed_same_flows_and_every_pattern_runs():
    a, b, c = drawn(4), drawn(4), drawn(5)
    assert a.equals(b)
    assert not a.equals(c)
    tags = a.index.str.extract(r"#t(\d)")[0].value_counts()
    assert tags["1"] == 8  # the permutation: one flow per host of pod 0
    assert tags["2"] == 8 * 14  # the ring: 8 members, 2 (8 - 1) steps
    assert tags["0"] > 20  # the incast events
    perm = a[a.index.str.contains("#t1")]
    assert sorted(perm.src) == sorted(perm.dst) and (perm.src != perm.dst).all()


def test_a_bad_value_names_its_key():
    bad = clos([traffic.incast("h0_*", "h0_0_0", load=0.5, stop="1ms", size="1KB", fan_in=(1, 15))])
    with pytest.raises(ValueError, match=r"traffic\[0\].fan_in_max: '15' exceeds the 7 senders other than 'h0_0_0'"):
        sluice.Simulation(bad).run(until="10us", progress=False)
