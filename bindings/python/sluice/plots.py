"""Plots of this field from a Result: queue and rate over time, the queue/rate phase plane, FCT
CDF and slowdown by flow size, the PAUSE timeline per port as a heat map.

Each function draws into `ax` (or new axes) and returns the axes (queue_and_rate: the figure).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd


def _axes(ax, **fig_kw):
    if ax is not None:
        return ax
    _, ax = plt.subplots(**fig_kw)
    return ax


def _busiest(df, n, key="max"):
    score = getattr(df, key)()
    return list(score[score > 0].sort_values(ascending=False).index[:n])


def queue_and_rate(result, queues=None, links=None, n=6):
    """Egress-queue depth (KB) and link throughput (Gb/s) over time, one above the other.
    Default columns: the n deepest queues and the n busiest link directions."""
    q = result.timeseries("queue")
    r = result.timeseries("link")
    queues = queues or _busiest(q, n)
    links = links or _busiest(r, n, "mean")
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    (q[queues] / 1e3).plot(ax=top, legend=bool(queues))
    top.set_ylabel("queue (KB)")
    r[links].plot(ax=bottom, legend=bool(links))
    bottom.set_ylabel("throughput (Gb/s)")
    bottom.set_xlabel("time (us)")
    top.set_title(f"{result.summary['scenario']} (seed {result.summary['seed']})")
    return fig


def egress_direction(result, queue_column):
    """The link direction a switch egress queue feeds: 'sw0.port16.p3' -> 'sw0->r0'."""
    node, port = queue_column.split(".")[:2]
    ports = result.ports
    row = ports[(ports.node == node) & (ports.port == int(port.removeprefix("port")))]
    if row.empty:
        raise ValueError(f"queue: '{queue_column}' is not a switch port of this run")
    return f"{node}->{row.peer.iloc[0]}"


def phase_plane(result, queue=None, rate=None, ax=None):
    """Queue depth (KB) against rate (Gb/s), coloured by time: the trajectory a
    congestion-control loop draws. queue: a queue_depth column (default: the deepest);
    rate: a flow_rate column (bit/s) or a link direction (default: the queue's own egress)."""
    q = result.timeseries("queue")
    queue = queue or _busiest(q, 1)[0]
    rates = result.timeseries("rate")
    if rate is not None and rate in rates.columns:
        y, label = rates[rate] / 1e9, f"{rate} rate limit (Gb/s)"
    else:
        rate = rate or egress_direction(result, queue)
        y, label = result.timeseries("link")[rate], f"{rate} throughput (Gb/s)"
    ax = _axes(ax)
    x = q[queue] / 1e3
    ax.plot(x, y, color="0.8", linewidth=0.8, zorder=1)
    points = ax.scatter(x, y, c=q.index, cmap="viridis", s=8, zorder=2)
    plt.colorbar(points, ax=ax, label="time (us)")
    ax.set_xlabel(f"{queue} queue (KB)")
    ax.set_ylabel(label)
    return ax


def fct_cdf(results, ax=None):
    """CDF of the FCT (us) of completed flows; results: a Result or {label: Result}."""
    ax = _axes(ax)
    for label, result in _labelled(results):
        fct = result.flows.fct_ns.dropna().sort_values() / 1e3
        if fct.empty:
            continue
        ax.step(fct, np.arange(1, len(fct) + 1) / len(fct), where="post", label=label)
    ax.set_xlabel("flow completion time (us)")
    ax.set_ylabel("fraction of flows")
    ax.legend()
    return ax


def slowdown(result):
    """Per completed flow: size and slowdown = FCT / (size x 8 / the sender's link rate), the
    time it would take alone on an idle wire (serialization only: slowdown >= ~1)."""
    flows = result.flows.dropna(subset=["fct_ns", "size_bytes"])
    rate = result.links.rate_bps
    ideal_ns = [size * 8 / _sender_rate(rate, src) * 1e9 for size, src in zip(flows.size_bytes, flows.src)]
    return pd.DataFrame({"size_bytes": flows.size_bytes, "slowdown": flows.fct_ns / ideal_ns}, index=flows.index)


def _sender_rate(rate, src):
    out = [r for name, r in rate.items() if name.startswith(f"{src}->")]
    return out[0]


def slowdown_by_size(results, bins=8, ax=None):
    """Median and 99th-percentile slowdown per flow-size bin (bins of equal flow count)."""
    ax = _axes(ax)
    for label, result in _labelled(results):
        s = slowdown(result)
        if s.empty:
            continue
        groups = s.groupby(pd.qcut(s.size_bytes, q=min(bins, len(s)), duplicates="drop"))
        mid = [iv.right for iv in groups.slowdown.median().index]
        ax.plot(mid, groups.slowdown.median(), marker="o", label=f"{label} median")
        ax.plot(mid, groups.slowdown.quantile(0.99), marker="^", linestyle="--", label=f"{label} p99")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flow size (bytes, upper edge of bin)")
    ax.set_ylabel("FCT slowdown")
    ax.legend()
    return ax


def pause_heatmap(result, ax=None):
    """Share of each sample period each (port, priority) was paused (PFC from its peer; the
    credit-blocked time on a credit fabric), ports never paused left out: the congestion tree
    growing and draining."""
    p = result.timeseries("paused")
    p = p.loc[:, p.max() > 0]
    ax = _axes(ax, figsize=(9, max(2.5, 0.3 * len(p.columns) + 1)))
    if p.empty:
        ax.set_title("no port was paused")
        return ax
    t = p.index.to_numpy()
    image = ax.imshow(p.T.to_numpy(), aspect="auto", interpolation="nearest", cmap="Reds", vmin=0, vmax=1,
                      extent=(0, t[-1], len(p.columns) - 0.5, -0.5))
    ax.set_yticks(range(len(p.columns)), p.columns)
    ax.set_xlabel("time (us)")
    plt.colorbar(image, ax=ax, label="paused fraction")
    return ax


def _labelled(results):
    if isinstance(results, dict):
        return list(results.items())
    return [(results.summary["scenario"], results)]
