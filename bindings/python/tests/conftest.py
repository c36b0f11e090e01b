import os
import pathlib

import matplotlib
import pytest

matplotlib.use("Agg")  # no display in CI

ROOT = pathlib.Path(os.environ.get("SLUICE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))


@pytest.fixture
def incast():
    return str(ROOT / "scenarios" / "incast.yaml")


def small_incast(senders=2, until="200us"):
    """A dict scenario: `senders` NICs at 10 Gb/s into one 40 Gb/s port (scenarios.md's keys)."""
    return {
        "name": "small-incast",
        "platform": {"kind": "incast", "senders": senders, "link_rate": "40Gbps", "link_delay": "1us"},
        "traffic": [{"kind": "constant", "src": "h*", "dst": "r0", "rate": "10Gbps", "priority": 3}],
        "run": {"until": until, "seed": 1, "sample_period": "10us"},
        "params": {"*.mtu": "1000B"},
    }


def pytest_configure(config):
    # Debian's distributed 2022.12 on its tornado: a deprecation inside Dask, not ours.
    config.addinivalue_line("filterwarnings", "ignore:make_current is deprecated:DeprecationWarning")
