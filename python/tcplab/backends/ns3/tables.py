"""An ns-3 run's output (engine/main.cc's samples.txt and its per-flow RTT and per-channel queue-delay
files) as the simulator's tables (docs/results.md), so plots, reports, sweeps and comparisons
read it like any run. What ns-3 does not expose is NaN; docs/ns3-backend.md lists each column's
source.

- flows: bytes delivered as the receiving application read them (ns-3 hands data over in order,
  each byte once); segments sent and retransmitted from the socket's `Tx` and `Retransmission`
  traces; timeouts and fast recoveries from what the socket tells the congestion control
  (CA_LOSS, CA_RECOVERY) and from SYNs sent again, ECN reductions from the CongState trace
  (CA_CWR); RTT statistics from every sample the flow's RTT estimator is given; lost packets
  from the drops of the flow's data packets and SYNs anywhere in the network.
- links: each direction's queue (the device queue, or the queue disc above it) and device traces;
  drops and marks by ns-3's own reason.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from tcplab.backends.table_columns import NAN, assemble, link_identity, queue_series
from tcplab.result import Result

# ns-3's drop reasons that an AQM decides at dequeue (codel-queue-disc.h:93-100; FqCoDel prefixes
# its children's reasons): tcplab's `aqm_drops`. RED's early drops are "Unforced drop"
# (red-queue-disc.h:186). Every other drop is the buffer's: `queue_drops`.
AQM_DROP_MARKER = "Target_exceeded"
EARLY_DROP = "Unforced_drop"


def build_result(scenario: dict[str, Any], resolved_toml: str, network: dict[str, Any], directory: Path,
                 wall_seconds: float) -> Result:
    parsed = _parse((directory / "samples.txt").read_text(encoding="utf-8"))
    duration = network["duration_ns"] / 1e9
    nodes = [node["name"] for node in network["nodes"]]
    flow_rows, series = [], []
    for flow in network["flows"]:
        rows = parsed["samples"].get(flow["flow_id"], [])
        flow_rows.append(_flow_row(flow, rows, parsed, nodes, duration, directory))
        series += _series(flow, rows)
    links = [_link_row(index, channel, parsed, nodes, duration, directory)
             for index, channel in enumerate(network["channels"])]
    names = {flow["flow_id"]: flow["name"] for flow in network["flows"]}
    events = [{"time_s": t, "flow_id": i, "name": names[i], "event": event} for t, i, event in parsed["E"]]
    return assemble(scenario, resolved_toml, "ns3", "ns-3.44", wall_seconds, duration, {
        "flows": flow_rows, "links": links, "timeseries": series,
        "queues": queue_series(network["channels"], parsed["Q"]), "events": events})


def _parse(samples: str) -> dict[str, Any]:
    parsed: dict[str, Any] = {"samples": defaultdict(list), "Q": defaultdict(list), "E": [], "T": {}, "S": {}, "L": {},
                              "D": defaultdict(dict)}
    for line in samples.splitlines():
        kind, *fields = line.split()
        if kind in ("F", "U"):
            parsed["samples"][int(fields[1])].append((float(fields[0]), fields[2:]))
        elif kind == "Q":
            parsed["Q"][int(fields[1])].append((float(fields[0]), [int(v) for v in fields[2:]]))
        elif kind == "E":
            parsed["E"].append((float(fields[0]), int(fields[1]), fields[2]))
        elif kind in ("T", "S", "L"):
            parsed[kind][int(fields[0])] = [int(v) for v in fields[1:]]
        elif kind == "D":
            parsed["D"][int(fields[0])][(fields[1], fields[2])] = int(fields[3])
    return parsed


def _samples(path: Path) -> np.ndarray:
    return np.fromfile(path, dtype=np.float64) if path.exists() else np.array([], dtype=np.float64)


def _flow_row(flow: dict[str, Any], rows: list, parsed: dict[str, Any], nodes: list[str], duration: float,
              directory: Path) -> dict[str, Any]:
    flow_id = flow["flow_id"]
    start = flow["start_ns"] / 1e9
    tcp = flow["protocol"] == "tcp"
    row = {
        "flow_id": flow_id, "name": flow["name"], "protocol": flow["protocol"], "cc": flow.get("cc") or "",
        "source": nodes[flow["source"]], "destination": nodes[flow["sink"]], "start_s": start,
        "base_rtt_ms": flow["base_rtt_ns"] / 1e6,
        "packet_payload_bytes": flow["tcp"]["mss"] if tcp else flow["datagram_bytes"],
        "size_bytes": float(flow["size_bytes"]) if flow.get("size_bytes") is not None else NAN,
    }
    if tcp:
        (sent_packets, sent_bytes, rexmit_packets, rexmit_bytes, timeouts, recoveries, ecn, lost, completed_ns,
         delivered) = parsed["T"][flow_id]
        completed = completed_ns / 1e9 if completed_ns >= 0 else None
        active = max((completed if completed is not None else duration) - start, 1e-9)
        rtt_ms = _samples(directory / f"rtt-{flow_id}.f64") * 1000
        row.update({
            "bytes_delivered": delivered, "goodput_bps": delivered * 8 / active,
            "bytes_sent": sent_bytes, "throughput_bps": sent_bytes * 8 / active, "packets_sent": sent_packets,
            "retransmitted_segments": rexmit_packets, "retransmitted_bytes": rexmit_bytes,
            "timeouts": timeouts, "timeouts_after_loss": NAN, "fast_recoveries": recoveries, "ecn_reductions": ecn,
            "rtt_mean_ms": float(rtt_ms.mean()) if rtt_ms.size else NAN,
            "rtt_min_ms": float(rtt_ms.min()) if rtt_ms.size else NAN,
            **dict(zip(("rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms"), _percentiles(rtt_ms))),
            "completion_time_s": completed - start if completed is not None else NAN,
            "duplicate_bytes": NAN, "packets_lost": lost, "loss_ratio": lost / sent_packets if sent_packets else NAN,
        })
    else:
        sent, lost = parsed["S"][flow_id]
        delivered = int(rows[-1][1][0]) if rows else 0
        active = max(duration - start, 1e-9)
        row.update({
            "bytes_delivered": delivered, "goodput_bps": delivered * 8 / active,
            "bytes_sent": sent * flow["datagram_bytes"], "throughput_bps": sent * flow["datagram_bytes"] * 8 / active,
            "packets_sent": sent, "retransmitted_segments": 0, "retransmitted_bytes": 0, "timeouts": 0,
            "timeouts_after_loss": 0, "fast_recoveries": 0, "ecn_reductions": 0, "rtt_mean_ms": NAN,
            "rtt_min_ms": NAN, "rtt_p50_ms": NAN, "rtt_p95_ms": NAN, "rtt_p99_ms": NAN, "completion_time_s": NAN,
            "duplicate_bytes": 0, "packets_lost": lost, "loss_ratio": lost / sent if sent else NAN,
        })
    row.update({"one_way_delay_mean_ms": NAN, "one_way_delay_p50_ms": NAN, "one_way_delay_p95_ms": NAN, "jitter_ms": NAN})
    return row


def _percentiles(values: np.ndarray) -> list[float]:
    """p50, p95 and p99 to three significant digits, as the simulator reports them; NaN without
    values."""
    if not values.size:
        return [NAN] * 3
    return [float(f"{value:.3g}") for value in np.quantile(values, [0.5, 0.95, 0.99])]


def _number(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else NAN


def _series(flow: dict[str, Any], rows: list) -> list[dict[str, Any]]:
    """One row per sample: ns-3's cwnd, ssthresh (NaN while unbounded), smoothed RTT, bytes in
    flight (the SACK pipe) and congestion state, read from the connection's TcpSocketState."""
    out, previous, previous_time = [], 0, None
    tcp = flow["protocol"] == "tcp"
    for t, values in rows:
        delivered = int(values[4] if tcp else values[0])
        interval = t - previous_time if previous_time is not None else None
        throughput = (delivered - previous) * 8 / interval if interval else 0.0
        row = {"time_s": t, "flow_id": flow["flow_id"], "name": flow["name"]}
        if tcp:
            cwnd, ssthresh, srtt, flight = (_number(v) for v in values[:4])
            row.update({
                "cwnd_bytes": cwnd, "ssthresh_bytes": ssthresh, "srtt_ms": srtt * 1000 if srtt > 0 else NAN,
                "in_flight_bytes": flight, "delivery_rate_bps": NAN, "throughput_bps": throughput,
                "state": "not_started" if t < flow["start_ns"] / 1e9 else (values[5] if values[5] != "none" else "slow_start"),
            })
        else:
            row.update({
                "cwnd_bytes": NAN, "ssthresh_bytes": NAN, "srtt_ms": NAN, "in_flight_bytes": NAN,
                "delivery_rate_bps": NAN, "throughput_bps": throughput,
                "state": "on" if t >= flow["start_ns"] / 1e9 else "not_started",
            })
        out.append(row)
        previous, previous_time = delivered, t
    return out


def _link_row(index: int, channel: dict[str, Any], parsed: dict[str, Any], nodes: list[str], duration: float,
              directory: Path) -> dict[str, Any]:
    offered, transmitted, transmitted_bytes, delivered, wire_losses, queued, max_packets, max_bytes = parsed["L"][index]
    reasons = parsed["D"].get(index, {})
    drops = {reason: count for (what, reason), count in reasons.items() if what == "drop"}
    aqm_drops = sum(count for reason, count in drops.items() if AQM_DROP_MARKER in reason)
    early_drops = drops.get(EARLY_DROP, 0)
    delays_ms = _samples(directory / f"queue-delay-{index}.f64") * 1000
    # Transmitted bytes include the 2-byte PPP header of every frame: the wire's time.
    return {
        **link_identity(channel, nodes, duration, transmitted_bytes),
        "offered_packets": offered, "transmitted_packets": transmitted, "transmitted_bytes": transmitted_bytes,
        "delivered_packets": delivered, "queue_drops": sum(drops.values()) - aqm_drops, "early_drops": early_drops,
        "aqm_drops": aqm_drops, "wire_losses": wire_losses,
        "ecn_marks": sum(count for (what, _), count in reasons.items() if what == "mark"),
        "queued_packets": queued, "max_queue_packets": max_packets, "max_queue_bytes": max_bytes,
        "queue_delay_mean_ms": float(delays_ms.mean()) if delays_ms.size else NAN,
        **dict(zip(("queue_delay_p50_ms", "queue_delay_p95_ms", "queue_delay_p99_ms"), _percentiles(delays_ms))),
    }
