"""One scenario on both back-ends, side by side: the simulator and the machine's own kernel.

The table has, per flow and for all flows together, goodput, the median and 95th percentile of
the smoothed RTT, and retransmitted segments, each with the Linux value's difference relative to
the simulator's. Both RTT columns come from the time series (the sender's smoothed RTT every
sample interval), measured alike on both back-ends: the flows table's RTT percentiles are not
(per-ACK samples in the simulator, the sampled smoothed RTT on Linux). The figure overlays each
flow's window and smoothed RTT: solid the simulator, dashed Linux.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab.api import BACKENDS, run
from tcplab.result import Result


def compare_backends(scenario: Any, overrides: dict | None = None, warm_up_s: float = 0.0,
                     progress: bool = False) -> tuple[dict[str, Result], pd.DataFrame]:
    """Runs the scenario on each back-end; returns the results by back-end and the table."""
    results = {backend: run(scenario, set=overrides or {}, backend=backend, progress=progress) for backend in BACKENDS}
    return results, comparison_table(results, warm_up_s)


def comparison_table(results: dict[str, Result], warm_up_s: float = 0.0) -> pd.DataFrame:
    measured = {backend: _per_flow(result, warm_up_s) for backend, result in results.items()}
    table = measured["simulator"].join(measured["linux"], lsuffix="_simulator", rsuffix="_linux")
    for column in ("goodput_mbps", "rtt_p50_ms", "rtt_p95_ms", "retransmitted_segments"):
        table[f"{column}_difference"] = table[f"{column}_linux"] / table[f"{column}_simulator"] - 1
    order = ["cc"] + [f"{c}_{s}" for c in ("goodput_mbps", "rtt_p50_ms", "rtt_p95_ms", "retransmitted_segments")
                      for s in ("simulator", "linux", "difference")]
    table = table.rename(columns={"cc_simulator": "cc"}).drop(columns=["cc_linux"])
    return table[order].reset_index()


def _per_flow(result: Result, warm_up_s: float) -> pd.DataFrame:
    flows = result.flows.set_index("name")
    series = result.timeseries
    srtt = series[series["time_s"] >= warm_up_s].groupby("name")["srtt_ms"]
    frame = pd.DataFrame({
        "cc": flows["cc"],
        "goodput_mbps": flows["goodput_bps"] / 1e6,
        "rtt_p50_ms": srtt.median(),
        "rtt_p95_ms": srtt.quantile(0.95),
        "retransmitted_segments": flows["retransmitted_segments"].astype(float),
    }).reindex(flows.index)  # the flows table's order, not the names' alphabetical one
    everything = series[series["time_s"] >= warm_up_s]["srtt_ms"]
    frame.loc["all flows"] = ["", frame["goodput_mbps"].sum(), everything.median(), everything.quantile(0.95),
                              frame["retransmitted_segments"].sum()]
    frame.index.name = "flow"
    return frame


def markdown_table(table: pd.DataFrame) -> str:
    header = ("| flow | cc | goodput Mb/s simulator | Linux | diff | RTT p50 ms simulator | Linux | diff "
              "| RTT p95 ms simulator | Linux | diff | retransmissions simulator | Linux | diff |")
    lines = [header, "|" + "---|" * 14]
    for row in table.to_dict(orient="records"):
        cells = [row["flow"], row["cc"]]
        for column, pattern in (("goodput_mbps", "{:.2f}"), ("rtt_p50_ms", "{:.1f}"), ("rtt_p95_ms", "{:.1f}"),
                                ("retransmitted_segments", "{:.0f}")):
            cells += [_format(row[f"{column}_simulator"], pattern), _format(row[f"{column}_linux"], pattern),
                      _percent(row[f"{column}_difference"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _format(value: float, pattern: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else pattern.format(value)


def _percent(value: float) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:+.1%}"


def overlay_figure(results: dict[str, Result]):
    """Each flow's window and smoothed RTT over time; solid the simulator, dashed Linux."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (cwnd, rtt) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for backend, style in zip(BACKENDS, ("-", "--")):
        series = results[backend].timeseries
        for index, (name, rows) in enumerate(series.groupby("name", sort=False)):
            colour = colours[index % len(colours)]
            label = f"{name} ({backend})"
            cwnd.plot(rows["time_s"], rows["cwnd_bytes"] / 1e3, style, color=colour, label=label, linewidth=1)
            rtt.plot(rows["time_s"], rows["srtt_ms"], style, color=colour, linewidth=1)
    cwnd.set_ylabel("cwnd (KB)")
    rtt.set_ylabel("smoothed RTT (ms)")
    rtt.set_xlabel("time (s)")
    cwnd.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    kernel = results["linux"].summary.get("kernel", "")
    figure.suptitle(f"simulator (solid) and Linux {kernel} (dashed)")
    figure.tight_layout()
    return figure


def save(results: dict[str, Result], table: pd.DataFrame, out: Path) -> list[Path]:
    """Both runs' tables, comparison.csv and .md, and overlay.png, into ``out``."""
    written = []
    for backend, result in results.items():
        written += result.save(out / backend)
    table.to_csv(out / "comparison.csv", index=False)
    (out / "comparison.md").write_text(markdown_table(table) + "\n", encoding="utf-8")
    figure = overlay_figure(results)
    figure.savefig(out / "overlay.png", dpi=110)
    return written + [out / "comparison.csv", out / "comparison.md", out / "overlay.png"]
