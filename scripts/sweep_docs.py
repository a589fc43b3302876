"""Makes the figures of docs/sweeps.md: a sweep of the quickstart over three buffer sizes and two
algorithms, three runs each, drawn as the report draws it. Prints the per-point table the page
quotes.

    python scripts/sweep_docs.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import tcplab
from tcplab import report_figures

ROOT = Path(__file__).resolve().parent.parent
BUFFERS = ["1BDP", "4BDP", "16BDP"]


def main() -> None:
    images = ROOT / "docs" / "img"
    images.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as out:
        sweep = tcplab.sweep(
            str(ROOT / "scenarios" / "quickstart.toml"),
            {"topology.bottleneck.buffer": BUFFERS, "flows.0.cc": ["cubic", "bbr"]},
            runs=3,
            out=Path(out) / "buffers",
            set={"simulation.duration": "10s"},
        )
        aggregate = report_figures.with_flow_labels(sweep.aggregate, sweep.flows, sweep.labels)
        flows = aggregate[aggregate["table"] == "flows"]
        for metric, name in [("goodput_bps", "sweep-goodput.png"), ("rtt_p95_ms", "sweep-rtt.png")]:
            figure = report_figures.metric_against_parameter(flows, metric, "topology.bottleneck.buffer", BUFFERS, ["flows.0.cc"])
            figure.savefig(images / name, dpi=90)
            print(f"docs/img/{name}")
        report_figures.throughput_delay_scatter(sweep.flows).savefig(images / "sweep-scatter.png", dpi=90)
        print("docs/img/sweep-scatter.png")
        runs = sweep.runs
        table = runs.groupby(["topology.bottleneck.buffer", "flows.0.cc"], sort=False).agg(
            runs=("run", "count"), total_goodput_mbps=("total_goodput_bps", lambda v: v.mean() / 1e6),
            jain=("jain_fairness", "mean"),
        )
        print(table.round(3).to_string())


if __name__ == "__main__":
    main()
