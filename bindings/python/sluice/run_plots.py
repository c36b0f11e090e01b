"""The standard plots of one run, from its summary (summary.json's object) and its CSV series.

`series(name)` gives a series as its CSV file reads (a DataFrame with a time_us column), or None
when the run has no such file. Each function returns a matplotlib Figure; tools/plot_run.py saves
them as PNG files, run_report.py embeds them in one HTML page.

Needs only matplotlib, numpy and pandas: tools/plot_run.py and run_report.py load this file by
path, without the native module.
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

TOP = 6  # lines per plot: more is unreadable
DPI = 110

RANKINGS = {"max": lambda v: v.max(), "p99": lambda v: v.quantile(0.99), "mean": lambda v: v.mean()}


class PlotError(ValueError):
    """A bad choice (--links) or a run that cannot be plotted: one line for the user."""


def top_columns(frame, n=TOP, by="max"):
    """The n columns with the largest peak, 99th percentile or average, ignoring all-zero ones."""
    score = RANKINGS[by](frame.drop(columns="time_us")).sort_values(ascending=False)
    return [c for c in score.index[:n] if score[c] > 0]


def chosen_links(frame, spec):
    """--links: a ranking (max, p99, mean) or comma-separated direction names (sw0->h1,h1->sw0)."""
    if spec in RANKINGS:
        return top_columns(frame, by=spec), f"busiest links (by {spec})"
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in frame.columns[1:]]
    if not names or unknown:
        raise PlotError(f"--links: no link direction '{','.join(unknown) or spec}' "
                        f"(max, p99, mean or names from link_throughput.csv, e.g. {frame.columns[1]})")
    return names, "chosen links"


def bottleneck_link(summary, frame):
    """The direction with the highest utilization over the run (summary links[]), else the highest mean."""
    used = [(link["utilization"], link["name"]) for link in summary.get("links", [])
            if "utilization" in link and link.get("name") in frame.columns]
    if used:
        utilization, name = max(used)
        return name, f"{utilization:.0%} utilized"
    means = frame.drop(columns="time_us").mean()
    return means.idxmax(), f"mean {means.max():.3g} Gb/s"


def lines(frame, columns, ylabel, title, scale=1.0, marked=None):
    """Columns of a series over time (ms); `marked` = (column, why) drawn thick, dashed, on top."""
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for c in columns:
        if marked and c == marked[0]:  # drawn last, on top, so that no other line hides it
            continue
        ax.plot(frame["time_us"] / 1e3, frame[c] * scale, label=c, linewidth=1.2)
    if marked:
        name, why = marked
        ax.plot(frame["time_us"] / 1e3, frame[name] * scale, label=f"{name}: bottleneck, {why}",
                color="black", linewidth=2.4, linestyle="--")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if columns:
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def held_ports(frame):
    """Columns (ports) that were ever paused or starved."""
    return [c for c in frame.columns[1:] if frame[c].max() > 0]


def heat_map(frame, title, what="paused"):
    """Share of each sample period each port was held (paused, or starved for credit), ports
    never held left out."""
    ever = held_ports(frame)
    fig, ax = plt.subplots(figsize=(9, 1.5 + 0.22 * max(len(ever), 1)))
    if ever:
        t = frame["time_us"] / 1e3
        image = ax.imshow(frame[ever].T.values, aspect="auto", interpolation="nearest", cmap="Reds",
                          vmin=0, vmax=1, extent=[t.iloc[0], t.iloc[-1], len(ever) - 0.5, -0.5])
        ax.set_yticks(range(len(ever)))
        ax.set_yticklabels(ever, fontsize=7)
        fig.colorbar(image, ax=ax, label=f"{what} share")
    else:
        ax.text(0.5, 0.5, f"no port was {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("time (ms)")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def hold_series(summary, series):
    """The run's held-port series: (frame, what, cause). On InfiniBand (credit_blocked_fraction
    present) the ports starved for credit, else the ports PFC paused."""
    credit = series("credit_blocked_fraction")
    if credit is not None:
        return credit, "starved", "credit-starved (InfiniBand)"
    return series("paused_fraction"), "paused", "paused (PFC)"


def queue_plot(summary, series):
    queues = series("queue_depth")
    return lines(queues, top_columns(queues), "queue depth (KB)", f"{summary['scenario']}: deepest egress queues",
                 scale=1e-3)


def link_plot(summary, series, links_spec="max"):
    """The links --links chooses and the bottleneck; returns (figure, chosen, bottleneck)."""
    links = series("link_throughput")
    chosen, what_links = chosen_links(links, links_spec)
    bottleneck = bottleneck_link(summary, links)
    fig = lines(links, chosen + [c for c in [bottleneck[0]] if c not in chosen], "throughput (Gb/s)",
                f"{summary['scenario']}: {what_links}", marked=bottleneck)
    return fig, chosen, bottleneck


def flow_plot(summary, series):
    flows = series("flow_throughput")
    kinds = {f["name"]: f["kind"] for f in summary["flows"]}
    long_lived = [c for c in flows.columns[1:] if kinds.get(c) != "finite"][:TOP]
    finite = [c for c in flows.columns[1:] if kinds.get(c) == "finite"]
    if finite:
        flows = flows.assign(**{"all finite flows": flows[finite].sum(axis=1)})
        long_lived.append("all finite flows")
    return lines(flows, long_lived, "delivered (Gb/s)", f"{summary['scenario']}: flow throughput")


def hold_plot(summary, series):
    """The PAUSE timeline (InfiniBand: the credit-starvation timeline) as a heat map; returns
    (figure, what, ports ever held)."""
    frame, what, cause = hold_series(summary, series)
    fig = heat_map(frame, f"{summary['scenario']}: share of each sample period {cause}", what)
    return fig, what, len(held_ports(frame))


def tree_plot(summary, series):
    """The congestion tree's size: how many ports were held in each sample period."""
    frame, what, cause = hold_series(summary, series)
    held = (frame.drop(columns="time_us") > 0).sum(axis=1)
    fig, ax = plt.subplots(figsize=(9, 3.2))
    ax.step(frame["time_us"] / 1e3, held, where="post", color="tab:red")
    ax.fill_between(frame["time_us"] / 1e3, held, step="post", color="tab:red", alpha=0.25)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(f"ports {what}")
    ax.set_title(f"{summary['scenario']}: congestion tree, ports {cause} in each sample period "
                 f"(peak {int(held.max()) if len(held) else 0})")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def fct_cdf_plot(summary):
    """CDF of the completed flows' FCT; None when no flow completed."""
    fct = np.sort([f["fct_ns"] / 1e3 for f in summary["flows"] if f.get("fct_ns") is not None])
    if not len(fct):
        return None
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.step(fct, np.arange(1, len(fct) + 1) / len(fct), where="post")
    ax.set_xlabel("flow completion time (us)")
    ax.set_ylabel("fraction of flows")
    ax.set_title(f"{summary['scenario']}: FCT of {len(fct)} completed flows")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def rate_plot(summary, series):
    """The flows' rate limits as congestion control set them (flow_rate.csv, Gb/s), the flows
    whose rate changed most; None when no flow's rate changed."""
    rates = series("flow_rate")
    if rates is None:
        return None
    values = rates.drop(columns="time_us")
    moving = (values.max() - values.min()).sort_values(ascending=False)
    chosen = [c for c in moving.index[:TOP] if moving[c] > 0]
    if not chosen:
        return None
    return lines(rates, chosen, "rate limit (Gb/s)", f"{summary['scenario']}: congestion-control rates", scale=1e-9)


def buffer_plot(summary, series):
    frame = series("buffer_occupancy")
    if frame is None:
        return None
    return lines(frame, top_columns(frame), "buffer in use (KB)", f"{summary['scenario']}: switch buffer occupancy",
                 scale=1e-3)


def save(fig, path):
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
