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
    """One line per link direction: name, rate, delay, buffer (in bytes, packets and BDPs), queue."""
    network = json.loads(_core.network(scenario_json))
    lines = []
    width = max((len(f"{c['link']} {c['direction']}") for c in network["channels"]), default=0)
    for channel in network["channels"]:
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
        name = f"{channel['link']} {channel['direction']}".ljust(width)
        lines.append(f"{name}  {_rate(channel['rate_bps'])}, {channel['delay_ns'] / 1e6:g} ms, buffer {buffer}; "
                     f"{_queue_settings(queue)}")
    return lines
