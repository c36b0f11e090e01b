"""The HTML report (`sluice run --report FILE`, `Simulation.run(report=FILE)`): one well-formed,
self-contained page with the run's numbers, plots and provenance (docs/observability.md)."""
import base64
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import sluice
from conftest import ROOT, small_incast

SLUICE = os.environ.get("SLUICE_BINARY", str(ROOT / "build" / "platforms" / "sluice"))
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "area", "base", "wbr", "source"}


class Page(html.parser.HTMLParser):
    """Checks nesting as it parses; keeps the images, every attribute and the table cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open, self.errors, self.images, self.attributes, self.rows, self.headings = [], [], [], [], [], []
        self._row, self._cell, self._heading = None, None, None

    def handle_starttag(self, tag, attrs):
        self.attributes += [(tag, name, value) for name, value in attrs]
        if tag == "img":
            self.images.append(dict(attrs))
        if tag not in VOID:
            self.open.append(tag)
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag in ("h1", "h2", "h3", "figcaption"):
            self._heading = ""

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.open[-1] if self.open else 'nothing'}>")
            return
        self.open.pop()
        if tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr":
            self.rows.append(self._row)
            self._row = None
        elif tag in ("h1", "h2", "h3", "figcaption"):
            self.headings.append(self._heading.strip())
            self._heading = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._heading is not None:
            self._heading += data


def parse(path):
    text = path.read_text(encoding="utf-8")
    page = Page()
    page.feed(text)
    page.close()
    return text, page


def check_page(path, summary):
    """Well-formed, self-contained, and the summary's numbers are in it. Returns the page."""
    text, page = parse(path)
    assert text.startswith("<!DOCTYPE html>")
    assert not page.errors, page.errors
    assert not page.open, f"unclosed: {page.open}"
    # Every image is an embedded PNG; nothing refers outside the file.
    assert len(page.images) >= 5
    for image in page.images:
        uri = image["src"]
        assert uri.startswith("data:image/png;base64,"), uri[:40]
        assert base64.b64decode(uri.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for tag, name, value in page.attributes:
        if name in ("src", "href", "action", "srcset", "poster", "data"):
            assert value.startswith(("data:", "#")), f"<{tag} {name}={value[:60]}>"
    assert not re.search(r"(https?:)?//[\w.-]+\.\w", text.replace("data:image/png;base64,", "")), "an external URL"
    assert "<script" not in text and "<link" not in text
    # The totals table holds every total as the summary has it.
    cells = {row[0]: row[1] for row in page.rows if len(row) == 2}
    totals = summary["totals"]
    for name in ("packet_hops", "drops", "flows", "flows_completed", "pause_frames", "cnp_frames"):
        assert cells[name] == str(int(totals[name])), (name, cells.get(name))
    assert cells["scenario_sha256"] == summary["provenance"]["scenario_sha256"]
    assert f"{summary['scenario']} (seed {summary['seed']})" in page.headings[0]
    return text, page


def sluice_run(*args, env=None):
    return subprocess.run([SLUICE, "run", *args], capture_output=True, text=True, env=env)


def test_cli_report_of_a_pfc_run(tmp_path):
    out, report = tmp_path / "run", tmp_path / "pcn.html"
    done = sluice_run(str(ROOT / "scenarios/pcn-basic.yaml"), "--until", "500us", "--out", str(out),
                      f"--report={report}")
    assert done.returncode == 0, done.stderr
    assert f"report written to {report}" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    text, page = check_page(report, summary)
    assert "PAUSE timeline" in page.headings and "Credit-starvation timeline" not in page.headings
    paused = sum(1 for p in summary["ports"] if p["pause_received"])
    assert paused > 0
    assert re.search(r"[1-9]\d* ports paused by PFC", text)
    for title in ("Egress queues", "Link throughput", "Flow throughput", "Congestion tree", "FCT CDF"):
        assert title in page.headings


def test_cli_report_of_an_infiniband_run_shows_credit_starvation(tmp_path):
    out = tmp_path / "ib"
    done = sluice_run(str(ROOT / "scenarios/ib-incast.yaml"), "--until", "200us", "--out", str(out), "--report", "-q")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    summary = json.loads((out / "summary.json").read_text())
    text, page = check_page(out / "report.html", summary)  # --report without FILE: into the --out folder
    assert "Credit-starvation timeline" in page.headings and "PAUSE timeline" not in page.headings
    assert "16 ports starved for credit (InfiniBand)" in text
    cells = {row[0]: row[1] for row in page.rows if len(row) == 2}
    assert cells["credit_packets"] == str(summary["totals"]["credit_packets"])
    assert "Ports with credit starvation, queueing or drops" in page.headings


def test_cli_report_without_out_leaves_no_folder_behind(tmp_path):
    before = set(os.listdir("/tmp"))
    report = tmp_path / "only.html"
    done = sluice_run(str(ROOT / "scenarios/incast.yaml"), "--until", "100us", "-q", f"--report={report}")
    assert done.returncode == 0, done.stderr
    assert report.stat().st_size > 10_000
    assert not [d for d in set(os.listdir("/tmp")) - before if d.startswith("sluice-report-")]


def one_line_error(done):
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    return done.stderr.strip()


def test_cli_report_failures_are_one_line(tmp_path):
    scenario = str(ROOT / "scenarios/incast.yaml")
    env = dict(os.environ, SLUICE_PYTHON="/nonexistent/python3")
    err = one_line_error(sluice_run(scenario, "--until", "20us", "-q", f"--report={tmp_path / 'r.html'}", env=env))
    assert err.startswith("sluice: error: --report: no Python at '/nonexistent/python3'"), err
    # An interpreter without the report's packages (no site-packages: no matplotlib).
    bare = tmp_path / "bare-python"
    bare.write_text("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n")
    bare.chmod(0o755)
    env = dict(os.environ, SLUICE_PYTHON=str(bare))
    err = one_line_error(sluice_run(scenario, "--until", "20us", "-q", f"--report={tmp_path / 'r.html'}", env=env))
    assert err == (f"sluice: error: --report: matplotlib is not installed for /usr/bin/python3 "
                   "(Debian: apt-get install python3-matplotlib)"), err
    # A folder that is not there: before the run.
    err = one_line_error(sluice_run(scenario, "--until", "20us", "-q", "--report=/nonexistent/r.html"))
    assert err == "sluice: error: --report: no folder '/nonexistent' for '/nonexistent/r.html'", err


def test_cli_report_names_its_file_with_equals_only(tmp_path):
    """--report[=FILE]: a word after a bare --report is never its file. Before the run, such a word is
    a one-line error saying how to name the file; --report before the scenario leaves the scenario
    alone; --report= (empty) is Boost's one-line error."""
    scenario = str(ROOT / "scenarios/incast.yaml")
    html = str(tmp_path / "r.html")
    err = one_line_error(sluice_run(scenario, "--until", "20us", "-q", "--report", html))
    assert err == (f"sluice: error: --report: '{html}' after --report is not its file; name the file as "
                   f"--report={html} (--report alone: DIR/report.html with --out, else report.html)"), err
    assert one_line_error(sluice_run("--report", html, scenario, "-q")) == err
    assert not (tmp_path / "r.html").exists()
    assert "the argument for option '--report' should follow immediately after the equal sign" in \
        one_line_error(sluice_run(scenario, "-q", "--report="))
    # The word after a bare --report may be the scenario (Boost would otherwise take it as the file).
    done = subprocess.run([SLUICE, "run", "--report", scenario, "--until", "20us", "-q", "--out", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "o" / "report.html").stat().st_size > 10_000


def test_cli_runs_the_report_beside_itself_as_an_install_lays_it_out(tmp_path):
    """The CLI runs <its folder>/../share/sluice/report/run_report.py: the build's copy
    (build/share/sluice/, the same files as the source tree's) or an install's, so neither needs the
    source tree. A copy of the executable in P/bin runs the script in P/share."""
    build_share = Path(SLUICE).resolve().parents[1] / "share" / "sluice"
    for name in ("run_report.py", "run_plots.py", "report.html.j2"):
        assert (build_share / "report" / name).read_bytes() == (ROOT / "bindings/python/sluice" / name).read_bytes()
    for name in ("websearch.txt", "fb-hadoop.txt"):
        assert (build_share / "data" / name).read_bytes() == (ROOT / "scenarios/data" / name).read_bytes()
    (tmp_path / "bin").mkdir()
    shutil.copy(SLUICE, tmp_path / "bin" / "sluice")
    script = tmp_path / "share" / "sluice" / "report" / "run_report.py"
    script.parent.mkdir(parents=True)
    script.write_text("import pathlib, sys\npathlib.Path(sys.argv[2]).write_text('stub of ' + sys.argv[1])\n")
    page = tmp_path / "r.html"
    done = subprocess.run([tmp_path / "bin" / "sluice", "run", str(ROOT / "scenarios/incast.yaml"), "--until", "20us",
                           "-q", f"--report={page}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert page.read_text().startswith("stub of ")


def test_python_run_writes_the_same_page(tmp_path):
    report = tmp_path / "py.html"
    result = sluice.Simulation(small_incast(senders=4)).run(report=report, progress=False)
    _, page = check_page(report, result.summary)
    assert "PAUSE timeline" in page.headings and "Egress queues" in page.headings


def test_report_script_names_what_it_cannot_read(tmp_path):
    script = ROOT / "bindings/python/sluice/run_report.py"
    done = subprocess.run([sys.executable, str(script), str(tmp_path), str(tmp_path / "x.html")],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr == f"no summary.json in '{tmp_path}' (a folder written by sluice run --out)\n", done.stderr
