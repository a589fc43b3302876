"""The network a scenario resolves to, in words: every link direction's rate and delay, its buffer
in bytes, packets and bandwidth-delay products, and its queue's thresholds as they will run.
``tcplab validate`` prints it after the resolved scenario, so a reader sees what "2BDP" or RED's
default thresholds became before running anything."""

from __future__ import annotations

import json
from typing import Any

from tcplab import _core

# The packet the views count in: a full Ethernet-sized data packet (MSS 1448 B + 52 B of headers).
PACKET_BYTES = 1500
# Above this many link directions (a fat tree, a dumbbell of many flows), directions with the same
# settings share one line: a k = 16 fat tree has 6,144 directions but a handful of settings.
GROUP_ABOVE = 40


def _size(value: float) -> str:
    """Bytes in the largest decimal unit that keeps them readable: 187.5 KB, 64 MB, 900 B."""
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
        if value >= scale:
            return f"{value / scale:.4g} {unit}"
    return f"{value:.0f} B"


def _rate(bps: float) -> str:
    for scale, unit in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if bps >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.0f} bit/s"


def _queue_settings(queue: dict[str, Any]) -> str:
    """The discipline's thresholds and times as the queue will use them."""
    kind, p = queue["kind"], queue["parameters"]
    if kind == "red":
        unit = "B" if p.get("byte_mode") else "packets"
        return f"red: min_th {p['min_th']:.4g} {unit}, max_th {p['max_th']:.4g} {unit}, max_p {p['max_p']:g}" + (
            ", marks ECN" if p.get("ecn") else "")
    if kind == "step":
        threshold = p.get("threshold_packets")
        mark = f"{threshold:.0f} packets" if threshold is not None else _size(p.get("threshold_bytes", 0))
        return f"step: marks ECN above {mark}"
    if kind in ("codel", "fq_codel", "pie"):
        target = p.get("target_ns", p.get("target"))
        text = f"{kind}: target {target / 1e6:g} ms" if isinstance(target, (int, float)) else kind
        return text + (", marks ECN" if p.get("ecn") else "")
    return kind


def describe(scenario_json: str) -> list[str]:
    """One line per link direction: name, rate, delay, buffer (in bytes, packets and BDPs), queue.
    Above GROUP_ABOVE directions, a count of nodes and links first, then one line per distinct
    setting, naming its first direction and how many more share it."""
    network = json.loads(_core.network(scenario_json))
    described = [(f"{c['link']} {c['direction']}", _settings(c)) for c in network["channels"]]
    if len(described) <= GROUP_ABOVE:
        width = max((len(name) for name, _ in described), default=0)
        return [f"{name.ljust(width)}  {text}" for name, text in described]
    groups: dict[str, list[str]] = {}
    for name, text in described:
        groups.setdefault(text, []).append(name)
    nodes = network["nodes"]
    switches = sum(1 for node in nodes if node["router"])
    lines = [f"{len(nodes)} nodes ({switches} switches or routers, {len(nodes) - switches} hosts), "
             f"{len(described)} link directions, {len(groups)} distinct settings:"]
    for text, names in groups.items():
        label = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more"
        lines.append(f"{label}: {text}")
    return lines


def _settings(channel: dict[str, Any]) -> str:
    """A direction's rate, delay, buffer and queue, without its name."""
    queue = channel["queue"]
    bdp = channel["bdp_bytes"]
    if queue["limit_bytes"] is not None:
        limit = queue["limit_bytes"]
        buffer = f"{_size(limit)} = {limit / PACKET_BYTES:.4g} packets"
    else:
        limit = queue["limit_packets"] * PACKET_BYTES
        buffer = f"{queue['limit_packets']} packets ({_size(limit)})"
    if bdp > 0:
        buffer += f" = {limit / bdp:.3g} BDP (BDP {_size(bdp)} at {channel['bdp_rtt_ns'] / 1e6:g} ms)"
    return (f"{_rate(channel['rate_bps'])}, {channel['delay_ns'] / 1e6:g} ms, buffer {buffer}; "
            f"{_queue_settings(queue)}")
