"""An ns-2 run's sample file (written by the script ``script.py`` makes) as the simulator's tables
(docs/results.md), so plots, reports, sweeps and comparisons read it like any run. What ns-2 does
not expose is NaN, never a guess; docs/ns2-backend.md lists each column's source.

- flows: bytes delivered from the sink's count of in-order packets (`bytes_`, whole segments);
  sent, retransmitted, timeouts after a loss (`nrexmit_`) and ECN reductions (`necnresponses_`) from the
  agents' counters at the end; RTT percentiles from the smoothed RTT sampled every interval (as
  the Linux back-end: ns-2 keeps no per-ACK record), packet loss from the links' drops.
- links: each direction's QueueMonitor/ED (arrivals, departures, drops, early drops, CE marks)
  and the mean of its queueing-delay Samples; queues: the monitor's length every interval.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from tcplab.backends.table_columns import NAN, assemble, link_identity, quantile, queue_series
from tcplab.result import Result


def build_result(scenario: dict[str, Any], resolved_toml: str, network: dict[str, Any], samples: str,
                 event_trace: str, wall_seconds: float) -> Result:
    parsed = _parse(samples)
    parsed["timeouts"] = _timeouts(event_trace, network, parsed["C"])
    duration = network["duration_ns"] / 1e9
    nodes = [node["name"] for node in network["nodes"]]
    flow_rows, series = [], []
    for flow in network["flows"]:
        rows = parsed["F" if flow["protocol"] == "tcp" else "U"].get(flow["flow_id"], [])
        flow_rows.append(_flow_row(flow, rows, parsed, nodes, duration))
        series += _series(flow, rows)
    links = [_link_row(index, channel, parsed["L"][index], nodes, duration) for index, channel in enumerate(network["channels"])]
    names = {flow["flow_id"]: flow["name"] for flow in network["flows"]}
    events = [{"time_s": t, "flow_id": i, "name": names[i], "event": event} for t, i, event in parsed["E"]]
    events += [{"time_s": t, "flow_id": i, "name": names[i], "event": "timeout"}
               for i, times in parsed["timeouts"].items() for t in times]
    return assemble(scenario, resolved_toml, "ns2", "ns-2.35", wall_seconds, duration, {
        "flows": flow_rows, "links": links, "timeseries": series,
        "queues": queue_series(network["channels"], parsed["Q"]), "events": events})


def _parse(samples: str) -> dict[str, Any]:
    parsed: dict[str, Any] = {"F": defaultdict(list), "U": defaultdict(list), "Q": defaultdict(list), "E": [],
                              "C": {}, "T": {}, "L": {}}
    for line in samples.splitlines():
        kind, *fields = line.split()
        if kind in ("F", "U", "Q"):
            parsed[kind][int(fields[1])].append((float(fields[0]), [_number(v) for v in fields[2:]]))
        elif kind == "E":
            parsed["E"].append((float(fields[0]), int(fields[1]), fields[2]))
        elif kind == "C":
            parsed["C"].setdefault(int(fields[1]), float(fields[0]))
        else:  # T, L: one line per flow or channel at the end
            parsed[kind][int(fields[0])] = [_number(v) for v in fields[1:]]
    return parsed


def _timeouts(event_trace: str, network: dict[str, Any], completed: dict[int, float]) -> dict[int, list[float]]:
    """Each flow's retransmission timer expiries from ns-2's event trace (`E t src dst TCP TIMEOUT
    fid ...`). An agent's timer also expires, and is traced, after its transfer is done (tcp.cc
    timeout() then only restarts its window): a finite flow's expiries count until it completed,
    and a restarting flow's are not counted at all (its old agents keep expiring beside the new)."""
    restarting = {f["flow_id"] for f in network["flows"] if f["restart_think_time_ns"] is not None}
    tcp = {f["flow_id"] for f in network["flows"] if f["protocol"] == "tcp"}
    times: dict[int, list[float]] = {i: [] for i in tcp - restarting}
    for line in event_trace.splitlines():
        fields = line.split()
        if len(fields) < 7 or fields[0] != "E" or fields[5] != "TIMEOUT":
            continue
        t, flow = float(fields[1]), int(fields[6])
        if flow in times and t < completed.get(flow, math.inf):
            times[flow].append(t)
    return times


def _number(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else NAN


def _flow_row(flow: dict[str, Any], rows: list, parsed: dict[str, Any], nodes: list[str], duration: float) -> dict:
    flow_id = flow["flow_id"]
    start = flow["start_ns"] / 1e9
    tcp = flow["protocol"] == "tcp"
    size = flow.get("size_bytes")
    delivered = int(rows[-1][1][-1 if tcp else 0]) if rows else 0
    if size is not None and flow["restart_think_time_ns"] is None:
        delivered = min(delivered, size)
    completed = parsed["C"].get(flow_id)
    end = completed if completed is not None else duration
    active = max(end - start, 1e-9)
    row = {
        "flow_id": flow_id, "name": flow["name"], "protocol": flow["protocol"], "cc": flow.get("cc") or "",
        "source": nodes[flow["source"]], "destination": nodes[flow["sink"]], "start_s": start,
        "base_rtt_ms": flow["base_rtt_ns"] / 1e6,
        "packet_payload_bytes": flow["tcp"]["mss"] if tcp else flow["datagram_bytes"],
        "size_bytes": float(size) if size is not None else NAN,
        "bytes_delivered": delivered, "goodput_bps": delivered * 8 / active,
    }
    if tcp:
        sent_packets, sent_bytes, rexmit_packets, rexmit_bytes, nrexmit, ecn = (int(v) for v in parsed["T"][flow_id])
        srtts = [values[2] * 1000 for _, values in rows if not math.isnan(values[2]) and values[2] > 0]
        row.update({
            "bytes_sent": sent_bytes, "throughput_bps": sent_bytes * 8 / active, "packets_sent": sent_packets,
            "retransmitted_segments": rexmit_packets, "retransmitted_bytes": rexmit_bytes,
            # Every expiry from the event trace; ns-2's nrexmit_ counts those after a loss, not
            # those that end an ECN wait or come while the window of an ECN reduction is
            # unacknowledged (tcp.cc timeout()).
            "timeouts": len(parsed["timeouts"][flow_id]) if flow_id in parsed["timeouts"] else NAN,
            "timeouts_after_loss": nrexmit, "fast_recoveries": NAN, "ecn_reductions": ecn,
            "rtt_mean_ms": sum(srtts) / len(srtts) if srtts else NAN, "rtt_min_ms": NAN,
            "rtt_p50_ms": quantile(srtts, 0.5), "rtt_p95_ms": quantile(srtts, 0.95), "rtt_p99_ms": quantile(srtts, 0.99),
            "completion_time_s": completed - start if completed is not None else NAN,
            "duplicate_bytes": NAN, "packets_lost": NAN, "loss_ratio": NAN,
        })
    else:
        sent = _cbr_datagrams(flow, duration)
        row.update({
            "bytes_sent": sent * flow["datagram_bytes"], "throughput_bps": sent * flow["datagram_bytes"] * 8 / active,
            "packets_sent": sent, "retransmitted_segments": 0, "retransmitted_bytes": 0, "timeouts": 0,
            "timeouts_after_loss": 0,
            "fast_recoveries": 0, "ecn_reductions": 0, "rtt_mean_ms": NAN, "rtt_min_ms": NAN, "rtt_p50_ms": NAN,
            "rtt_p95_ms": NAN, "rtt_p99_ms": NAN, "completion_time_s": NAN, "duplicate_bytes": 0,
            "packets_lost": max(sent - int(rows[-1][1][1]), 0) if rows else 0,
            "loss_ratio": (max(sent - int(rows[-1][1][1]), 0) / sent) if rows and sent else NAN,
        })
    row.update({"one_way_delay_mean_ms": NAN, "one_way_delay_p50_ms": NAN, "one_way_delay_p95_ms": NAN, "jitter_ms": NAN})
    return row


def _cbr_datagrams(flow: dict[str, Any], duration: float) -> int:
    """Datagrams a CBR source sent: ns-2's UDP agent counts none, but its CBR (random_ 0) sends at
    start + k x interval until it stops, interval = size x 8 / rate (tcp/cbr_traffic.cc)."""
    start = flow["start_ns"] / 1e9
    end = min(duration, flow["stop_ns"] / 1e9) if flow["stop_ns"] is not None else duration
    if end < start:
        return 0
    interval = flow["datagram_bytes"] * 8 / flow["rate_bps"]
    return math.floor((end - start) / interval + 1e-9) + 1


def _series(flow: dict[str, Any], rows: list) -> list[dict[str, Any]]:
    """One row per sample. ns-2 keeps cwnd and ssthresh in packets; the state is read from them
    (slow start below ssthresh), since the agents expose no recovery state."""
    out, previous, previous_time = [], 0, None
    tcp = flow["protocol"] == "tcp"
    packet = flow["tcp"]["mss"] if tcp else 0
    for t, values in rows:
        delivered = values[-1] if tcp else values[0]
        interval = t - previous_time if previous_time is not None else None
        throughput = (delivered - previous) * 8 / interval if interval else 0.0
        if tcp:
            cwnd, ssthresh, srtt, flight = values[:4]
            if t < flow["start_ns"] / 1e9:
                state = "not_started"
            else:
                state = "slow_start" if math.isnan(cwnd) or cwnd < ssthresh else "congestion_avoidance"
            out.append({
                "time_s": t, "flow_id": flow["flow_id"], "name": flow["name"],
                "cwnd_bytes": cwnd * packet, "ssthresh_bytes": ssthresh * packet,
                "srtt_ms": srtt * 1000 if srtt > 0 else NAN, "in_flight_bytes": flight * packet,
                "delivery_rate_bps": NAN, "throughput_bps": throughput, "state": state,
            })
        else:
            out.append({
                "time_s": t, "flow_id": flow["flow_id"], "name": flow["name"], "cwnd_bytes": NAN,
                "ssthresh_bytes": NAN, "srtt_ms": NAN, "in_flight_bytes": NAN, "delivery_rate_bps": NAN,
                "throughput_bps": throughput, "state": "on" if t >= flow["start_ns"] / 1e9 else "not_started",
            })
        previous, previous_time = delivered, t
    return out


def _link_row(index: int, channel: dict[str, Any], values: list[float], nodes: list[str], duration: float) -> dict:
    (arrivals, _arrived_bytes, departures, departed_bytes, drops, _dropped_bytes, early_drops, marks, queued,
     _queued_bytes, delay_mean_s, delay_count, wire_losses) = values
    return {
        **link_identity(channel, nodes, duration, departed_bytes),
        "offered_packets": int(arrivals), "transmitted_packets": int(departures),
        "transmitted_bytes": int(departed_bytes), "delivered_packets": int(departures - wire_losses),
        "queue_drops": int(drops), "early_drops": int(early_drops), "aqm_drops": 0, "wire_losses": int(wire_losses),
        "ecn_marks": int(marks), "queued_packets": int(queued), "max_queue_packets": NAN, "max_queue_bytes": NAN,
        "queue_delay_mean_ms": delay_mean_s * 1000 if delay_count else NAN,
        "queue_delay_p50_ms": NAN, "queue_delay_p95_ms": NAN, "queue_delay_p99_ms": NAN,
    }
