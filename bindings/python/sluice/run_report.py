#!/usr/bin/env python3
"""One run as one self-contained HTML page: the summary tables, the standard plots (embedded as
base64 PNG), the provenance and the warnings. No external reference: the file can be mailed.

    run_report.py RUN_DIR OUT.html     (what `sluice run ... --report FILE` runs on its outputs)

Python: Simulation.run(report=FILE) calls write_report with the Result's summary and series.
Needs jinja2 (Debian python3-jinja2), matplotlib, numpy and pandas, not the native module: the
CLI runs this file by path. A missing package is one line on stderr and exit status 3.
"""
import base64
import importlib.util
import io
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATE = "report.html.j2"
MISSING_PACKAGE = 3  # exit status: a package is not installed for this interpreter
DEBIAN = {"matplotlib": "python3-matplotlib", "jinja2": "python3-jinja2", "pandas": "python3-pandas",
          "numpy": "python3-numpy"}

FLOWS_SHOWN = 20
PORTS_SHOWN = 40


def _sibling(name):
    """run_plots.py beside this file, by path (this file also runs as a script, outside the package)."""
    spec = importlib.util.spec_from_file_location(f"sluice_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def number(value):
    """A summary number as the tables show it: integers whole, others to 6 significant digits."""
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value).lower()
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e15):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def png_data_uri(fig, plt):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, metadata={"Software": None})  # no URL inside the PNG either
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _plots(summary, series, run_plots, plt):
    """(title, data URI or None, note) per standard plot, in the page's order."""
    ib = series("credit_blocked_fraction") is not None
    hold, what, held = run_plots.hold_plot(summary, series)
    links, _, bottleneck = run_plots.link_plot(summary, series)
    fct, rates = run_plots.fct_cdf_plot(summary), run_plots.rate_plot(summary, series)
    shown = [
        ("Egress queues", run_plots.queue_plot(summary, series), "the deepest switch egress queues"),
        ("Link throughput", links, f"bottleneck {bottleneck[0]} ({bottleneck[1]})"),
        ("Flow throughput", run_plots.flow_plot(summary, series), "payload delivered per flow"),
        ("Credit-starvation timeline" if ib else "PAUSE timeline", hold,
         f"{held} ports {what}" + (" for credit (InfiniBand)" if ib else " by PFC")),
        ("FCT CDF", fct, "" if fct else "no flow completed"),
        ("Congestion-control rates", rates, "" if rates else "no flow's rate limit changed"),
        ("Congestion tree", run_plots.tree_plot(summary, series), "ports held in each sample period"),
        ("Switch buffer occupancy", run_plots.buffer_plot(summary, series), ""),
    ]
    return [(title, png_data_uri(fig, plt) if fig is not None else None, note) for title, fig, note in shown]


def _interesting_ports(summary, ib):
    rows = [p for p in summary["ports"]
            if p.get("pause_sent") or p.get("pause_received") or p.get("drops") or p.get("max_queue_bytes")
            or p.get("credit_blocked_ns")]
    key = "credit_blocked_ns" if ib else "max_queue_bytes"
    return sorted(rows, key=lambda p: -(p.get(key) or 0))


def render(summary, series):
    """The page's HTML text. series(name): a CSV series as a DataFrame with time_us, or None."""
    import jinja2
    import matplotlib.pyplot as plt

    run_plots = _sibling("run_plots")
    ib = "credit_packets" in summary["totals"]
    ports = _interesting_ports(summary, ib)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["num"] = number
    return env.get_template(TEMPLATE).render(
        s=summary, ib=ib, plots=_plots(summary, series, run_plots, plt),
        links=sorted((link for link in summary["links"] if link["utilization"] >= 0.01),
                     key=lambda link: -link["utilization"]),
        quiet_links=sum(1 for link in summary["links"] if link["utilization"] < 0.01),
        ports=ports[:PORTS_SHOWN], more_ports=max(0, len(ports) - PORTS_SHOWN),
        flows=summary["flows"][:FLOWS_SHOWN], more_flows=max(0, len(summary["flows"]) - FLOWS_SHOWN),
        provenance=summary.get("provenance", {}))


def write_report(summary, series, path):
    """Writes the page to `path` (created or replaced)."""
    text = render(summary, series)
    Path(path).write_text(text, encoding="utf-8")
    return Path(path)


def folder_series(folder):
    import pandas as pd

    def series(name):
        csv = Path(folder) / f"{name}.csv"
        return pd.read_csv(csv) if csv.exists() else None
    return series


def main(argv):
    if len(argv) != 3:
        print("usage: run_report.py RUN_DIR OUT.html", file=sys.stderr)
        return 2
    for package, debian in DEBIAN.items():
        if importlib.util.find_spec(package) is None:
            print(f"{package} is not installed for {sys.executable} (Debian: apt-get install {debian})", file=sys.stderr)
            return MISSING_PACKAGE
    folder, out = Path(argv[1]), Path(argv[2])
    try:
        summary = json.loads((folder / "summary.json").read_text())
    except FileNotFoundError:
        print(f"no summary.json in '{folder}' (a folder written by sluice run --out)", file=sys.stderr)
        return 1
    try:
        write_report(summary, folder_series(folder), out)
    except OSError as e:
        print(f"cannot write '{out}': {e.strerror or e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - one line for the user, not a traceback
        print(f"report of '{folder}' failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
