"""Draws docs/img/layers.png: the core crate's layers and which layer uses which, read from the
code itself (the same graph scripts/check_layout.py checks for circles).

    python scripts/architecture_diagram.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_layout import ROOT, rust_layer_graph  # noqa: E402

# One line per layer, shown in its box.
ROLES = {
    "time": "u64 ns, conversions",
    "units": "rates, sizes, buffers",
    "prefetch": "cache prefetch hints",
    "sim": "event queue, RNG streams",
    "histogram": "delay distributions, HDR buckets",
    "results": "output table shapes",
    "net": "packets, queues, links, routes",
    "cc": "algorithm trait + one file each",
    "tcp": "sender, receiver",
    "traffic": "application sources",
    "metrics": "samples, tables, fairness",
    "scenario": "model, validation, defaults",
    "simulation": "build + event loop",
}


def transitive_reduction(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Keeps an edge a -> b only when b is not reachable from a another way (fewer arrows)."""

    def reachable(start: str, skip: str) -> set[str]:
        seen, todo = set(), [n for n in graph[start] if n != skip]
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        return seen

    return {a: {b for b in targets if b not in reachable(a, b)} for a, targets in graph.items()}


def ranks(graph: dict[str, set[str]]) -> dict[str, int]:
    """A layer's row: one above the highest layer it uses (the graph has no circles)."""
    memo: dict[str, int] = {}

    def rank(node: str) -> int:
        if node not in memo:
            memo[node] = 1 + max((rank(n) for n in graph.get(node, ())), default=-1)
        return memo[node]

    return {node: rank(node) for node in graph}


def draw(path: Path) -> None:
    graph = rust_layer_graph()
    for targets in list(graph.values()):
        for target in targets:
            graph.setdefault(target, set())
    row_of = ranks(graph)
    rows: dict[int, list[str]] = {}
    for node in sorted(graph, key=lambda n: (row_of[n], n)):
        rows.setdefault(row_of[node], []).append(node)
    width, height = 3.2, 0.9
    position = {}
    for row, nodes in rows.items():
        for i, node in enumerate(nodes):
            position[node] = ((i - (len(nodes) - 1) / 2) * (width + 0.6), row * 1.8)
    figure = Figure(figsize=(11, 1.6 * len(rows) + 1), layout="constrained")
    ax = figure.subplots()
    for a, targets in transitive_reduction(graph).items():
        for b in targets:
            (x1, y1), (x2, y2) = position[a], position[b]
            ax.annotate(
                "",
                xy=(x2, y2 + height / 2),
                xytext=(x1, y1 - height / 2),
                arrowprops={"arrowstyle": "->", "color": "#555555", "linewidth": 1.0},
            )
    for node, (x, y) in position.items():
        box = FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0.05",
            facecolor="#e8f0fb",
            edgecolor="#2b5797",
        )
        ax.add_patch(box)
        ax.text(x, y + 0.15, node, ha="center", va="center", fontsize=11, weight="bold")
        ax.text(x, y - 0.2, ROLES.get(node, ""), ha="center", va="center", fontsize=8)
    xs = [x for x, _ in position.values()]
    ax.set_xlim(min(xs) - width, max(xs) + width)
    ax.set_ylim(-height, max(row_of.values()) * 1.8 + height)
    ax.set_axis_off()
    ax.set_title("crates/tcplab-core: an arrow means 'uses' (directly or through the layer it points to)")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)


if __name__ == "__main__":
    out = ROOT / "docs" / "img" / "layers.png"
    draw(out)
    print(f"wrote {out.relative_to(ROOT)}")
