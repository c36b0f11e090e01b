"""The results store: runs appended by the CLI and by Simulation.run(store=...), read back with
sluice.store (docs/outputs.md#the-results-store)."""

import json
import os
import sqlite3
import subprocess

import pandas as pd
import pytest

import sluice
from conftest import ROOT, small_incast

CLI = os.environ.get("SLUICE_BINARY", str(ROOT / "build" / "platforms" / "sluice"))


def _same(a, b):
    return (a is None and pd.isna(b)) or a == b


def test_a_cli_run_reads_back_in_python_as_its_summary_json(incast, tmp_path):
    store = tmp_path / "runs.sqlite"
    subprocess.run([CLI, "run", incast, "--until", "200us", "-q", "--out", str(tmp_path / "out"), "--store", str(store)],
                   check=True)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    db = sluice.store.open(store)
    runs = db.runs()
    assert list(runs["id"]) == [1]
    run = runs.iloc[0]
    assert run["scenario"] == summary["scenario"] and run["seed"] == summary["seed"]
    assert not run["interrupted"] and run["tags"] is None
    for key, value in summary["provenance"].items():
        assert run[key] == value, key
    for key, value in summary["totals"].items():
        assert _same(value, run[key]), key
    for key, value in summary["congestion_tree"].items():
        assert run[f"congestion_tree.{key}"] == value, key
    pd.testing.assert_frame_equal(db.flows(1), pd.DataFrame(summary["flows"]).set_index("name"), check_dtype=False, check_like=True)
    pd.testing.assert_frame_equal(db.links(1), pd.DataFrame(summary["links"]).set_index("name"), check_dtype=False, check_like=True)
    ports = pd.DataFrame(summary["ports"])
    pd.testing.assert_frame_equal(db.ports(1)[ports.columns], ports, check_dtype=False, check_like=True)
    assert db.totals(1) == summary["totals"]
    assert db.counters(1) == summary["counters"]
    assert db.summary(1)["provenance"] == summary["provenance"]


def test_simulation_runs_append_to_the_store_with_their_series_and_tags(tmp_path):
    store = tmp_path / "py.sqlite"
    a = sluice.Simulation(small_incast(senders=2)).run(store=store, store_series=True)
    b = sluice.Simulation(small_incast(senders=3), seed=5).run(store=store, store_tags={"senders": 3})
    assert (a.store_id, b.store_id) == (1, 2)
    with sluice.store.open(store) as db:
        runs = db.runs().set_index("id")
        assert list(runs["seed"]) == [1, 5]
        assert runs.loc[1, "tags"] is None and runs.loc[2, "tags"] == {"senders": 3}
        assert list(runs["flows"]) == [2, 3]
        assert runs.loc[2, "packet_hops"] == b.totals["packet_hops"]
        pd.testing.assert_frame_equal(db.flows(1), a.flows, check_dtype=False, check_like=True)
        pd.testing.assert_frame_equal(db.ports(2)[b.ports.columns], b.ports, check_dtype=False, check_like=True)
        # The CSV text: times to 3 decimals, values to 6 significant digits.
        for name in ("queue", "link", "flow", "paused", "rate", "buffer"):
            pd.testing.assert_frame_equal(db.series(1, name), a.timeseries(name), check_exact=False, rtol=1e-5,
                                          check_index_type=False)
        assert db.series_names(2) == []
        with pytest.raises(ValueError, match=r"run 2 has no series 'queue' \(stored without its series"):
            db.series(2, "queue")
        with pytest.raises(ValueError, match=r"has no run 9 \(ids 1 to 2\)$"):
            db.flows(9)
    assert sqlite3.connect(store).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_bad_stores_are_one_line_errors(tmp_path):
    sim = sluice.Simulation(small_incast())
    with pytest.raises(ValueError, match=r"^store: cannot open '/nonexistent/x.sqlite': unable to open database file$"):
        sim.run(store="/nonexistent/x.sqlite")
    with pytest.raises(ValueError, match=r"^store_series: needs store FILE$"):
        sim.run(store_series=True)
    with pytest.raises(ValueError, match=r"^store: cannot open '.*missing.sqlite': no such file$"):
        sluice.store.open(tmp_path / "missing.sqlite")
    text = tmp_path / "notes.txt"
    text.write_text("not a store\n")
    with pytest.raises(ValueError, match=r"^store: '.*notes.txt': file is not a database$"):
        sluice.store.open(text)
    with pytest.raises(ValueError, match=r"^store: '.*notes.txt': file is not a database$"):
        sim.run(store=text)
