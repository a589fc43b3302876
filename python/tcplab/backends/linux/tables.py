"""A Linux back-end run's measurements in the simulator's tables (docs/results.md), so every
plot, report and comparison reads both alike. What Linux does not expose is NaN, never a guess:
docs/linux-backend.md lists each column's source.

- flows: bytes delivered and completion from the receiving application; sent, retransmitted and
  timeouts from the sender's last TCP_INFO; RTT percentiles from the smoothed RTT sampled every
  interval (the kernel keeps no per-ACK record), the minimum from tcpi_min_rtt; packets lost and
  one-way delay from the link emulator, which sees every packet.
- timeseries: TCP_INFO every sample interval (the delivery rate is tcpi_delivery_rate), goodput
  from the receiver's count at the same instants. links and queues: the emulator's, which are the
  simulator's own code.
- events: a ``timeout`` at the first sample after each retransmission timeout (tcpi_total_rto),
  and the events tcplab's BPF algorithms write (ROCCET's congestion events, RTA's switches) at
  the kernel's own time.
"""

from __future__ import annotations

import math
import os
import statistics
from typing import Any

import numpy as np

from tcplab.backends.table_columns import columns as _columns
from tcplab.backends.table_columns import empty_events
from tcplab.backends.table_columns import quantile as _quantile
from tcplab.backends.table_columns import summary as base_summary
from tcplab.result import Result

NAN = math.nan


def build_result(scenario: dict, resolved_toml: str, flows: list[dict], reports: dict, links: dict,
                 duration: float, algorithm_events: list[tuple[float, int, str]]) -> Result:
    """``algorithm_events``: (run time in s, flow id, name) from the BPF algorithms."""
    emulator = links["emulator"]
    rows = [_flow_row(flow, reports, emulator, duration) for flow in flows]
    series, events = _series_and_events(flows, reports)
    names = {flow["flow_id"]: flow["name"] for flow in flows}
    events += [{"time_s": t, "flow_id": flow_id, "name": names[flow_id], "event": event}
               for t, flow_id, event in algorithm_events + _start_events(flows, reports) if 0 <= t <= duration]
    events.sort(key=lambda row: (row["time_s"], row["flow_id"]))
    summary = base_summary(scenario, "linux", duration, rows, int(np.sum(links["links"]["transmitted_packets"])))
    summary.update({
        "kernel": os.uname().release,
        # tcplab's algorithm -> the kernel's congestion control that ran it (a module, or tcplab's
        # BPF version tcplab_<name>), as the senders' sockets reported it.
        "kernel_congestion_controls": ", ".join(sorted({
            f"{flow['cc']}={reports[(flow['flow_id'], 'sender')]['congestion_control']}"
            for flow in flows if flow["protocol"] == "tcp"})),
        "emulator_realtime": emulator["realtime"],
        "emulator_lateness_p50_ms": emulator["lateness_p50_ms"],
        "emulator_lateness_p99_ms": emulator["lateness_p99_ms"],
        "emulator_lateness_max_ms": emulator["lateness_max_ms"],
        "emulator_packets_forwarded": emulator["packets_written"],
        "emulator_packets_ignored": emulator["packets_ignored"],
        "emulator_largest_packet_bytes": emulator["largest_packet_bytes"],
        "emulator_write_failures": emulator["write_failures"],
        **_start_lateness(flows, reports),
    })
    result = Result(summary=summary, scenario_toml=resolved_toml)
    result._columns = {
        "flows": _columns(rows),
        "links": links["links"],
        "timeseries": _columns(series),
        "queues": links["queues"],
        "events": _columns(events) if events else empty_events(),
    }
    return result


def _start_lateness(flows: list[dict], reports: dict) -> dict:
    """How late the TCP senders' first data went out against their scenario start, the handshake
    aside (the endpoints' ``start_lateness_s``): the median, the 99th percentile and the largest
    over the flows that sent, in ms (NaN when none did). The simulator's flows start on time."""
    late = [reports[(flow["flow_id"], "sender")].get("start_lateness_s") for flow in flows if flow["protocol"] == "tcp"]
    late_ms = [s * 1000 for s in late if s is not None]
    return {"start_lateness_p50_ms": _quantile(late_ms, 0.5), "start_lateness_p99_ms": _quantile(late_ms, 0.99),
            "start_lateness_max_ms": max(late_ms) if late_ms else NAN}


def _start_events(flows: list[dict], reports: dict) -> list[tuple[float, int, str]]:
    """When each TCP sender called ``connect()`` (its SYN left) and first wrote data, in run time:
    the kernel's flows start a little after the scenario says, in two parts (the process waking,
    then the wait from the handshake's end to the first write), and these place both."""
    starts = []
    for flow in flows:
        report = reports[(flow["flow_id"], "sender")] if flow["protocol"] == "tcp" else {}
        if report.get("connect_s") is None:
            continue
        starts.append((report["connect_s"], flow["flow_id"], "connect"))
        if report.get("first_write_s") is not None:
            starts.append((report["first_write_s"], flow["flow_id"], "first_write"))
    return starts


def _flow_row(flow: dict, reports: dict, emulator: dict, duration: float) -> dict:
    flow_id = flow["flow_id"]
    sent, received = reports[(flow_id, "sender")], reports[(flow_id, "receiver")]
    start = flow["start_ns"] / 1e9
    tcp = flow["protocol"] == "tcp"
    size = flow.get("size_bytes")
    complete = tcp and size is not None and received.get("finished") and received["bytes"] == size
    end = received["last_byte_s"] if complete else duration
    active = max(end - start, 1e-9)
    row = {
        "flow_id": flow_id, "name": flow["name"], "protocol": flow["protocol"], "cc": flow.get("cc") or "",
        "source": flow["source"], "destination": flow["sink"], "start_s": start,
        "base_rtt_ms": flow["base_rtt_ns"] / 1e6,
        "packet_payload_bytes": flow["mss"] if tcp else flow["datagram_bytes"],
        "size_bytes": float(size) if size is not None else NAN,
        "bytes_delivered": received["bytes"], "goodput_bps": received["bytes"] * 8 / active,
    }
    lost = emulator["data_packets_lost"][flow_id]
    if tcp:
        final = sent["final"]
        srtts = [sample["srtt_ms"] for _, sample in sent["samples"] if sample["srtt_ms"] is not None]
        row.update({
            "bytes_sent": final["bytes_sent"], "throughput_bps": final["bytes_sent"] * 8 / active,
            "packets_sent": final["data_segs_out"], "retransmitted_segments": final["total_retrans"],
            "retransmitted_bytes": final["bytes_retrans"],
            "timeouts": final["total_rto"] if final["total_rto"] is not None else NAN,
            "timeouts_after_loss": NAN, "fast_recoveries": NAN, "ecn_reductions": NAN,
            "rtt_mean_ms": statistics.fmean(srtts) if srtts else NAN,
            "rtt_min_ms": final["min_rtt_us"] / 1000 if final["min_rtt_us"] else NAN,
            "rtt_p50_ms": _quantile(srtts, 0.5), "rtt_p95_ms": _quantile(srtts, 0.95),
            "rtt_p99_ms": _quantile(srtts, 0.99),
            "completion_time_s": end - start if complete else NAN,
            "duplicate_bytes": NAN, "packets_lost": lost,
            "loss_ratio": lost / final["data_segs_out"] if final["data_segs_out"] else NAN,
        })
    else:
        datagrams = sent["datagrams_sent"]
        row.update({
            "bytes_sent": datagrams * flow["datagram_bytes"], "throughput_bps": datagrams * flow["datagram_bytes"] * 8 / active,
            "packets_sent": datagrams, "retransmitted_segments": 0, "retransmitted_bytes": 0, "timeouts": 0,
            "timeouts_after_loss": 0, "fast_recoveries": 0, "ecn_reductions": 0, "rtt_mean_ms": NAN, "rtt_min_ms": NAN, "rtt_p50_ms": NAN,
            "rtt_p95_ms": NAN, "rtt_p99_ms": NAN, "completion_time_s": NAN, "duplicate_bytes": 0,
            "packets_lost": lost, "loss_ratio": lost / datagrams if datagrams else NAN,
        })
    row.update({
        "one_way_delay_mean_ms": emulator["one_way_delay_mean_ms"][flow_id],
        "one_way_delay_p50_ms": emulator["one_way_delay_p50_ms"][flow_id],
        "one_way_delay_p95_ms": emulator["one_way_delay_p95_ms"][flow_id],
        # The emulator keeps delay percentiles, not the datagram-by-datagram changes jitter needs.
        "jitter_ms": NAN,
    })
    return row


def _series_and_events(flows: list[dict], reports: dict) -> tuple[list[dict], list[dict]]:
    """Rows per flow per sample, in time order as the simulator writes them, and timeouts."""
    rows, events = [], []
    for flow in flows:
        flow_id, name = flow["flow_id"], flow["name"]
        received = dict(reports[(flow_id, "receiver")]["samples"])
        windows = dict(reports[(flow_id, "sender")].get("samples", []))
        previous_bytes, previous_time, timeouts = 0, None, 0
        for t in sorted(received):
            window = windows.get(t)
            interval = t - previous_time if previous_time is not None else None
            rows.append({
                "time_s": t, "flow_id": flow_id, "name": name,
                "cwnd_bytes": _value(window, "cwnd_bytes"), "ssthresh_bytes": _value(window, "ssthresh_bytes"),
                "srtt_ms": _value(window, "srtt_ms"), "in_flight_bytes": _value(window, "in_flight_bytes"),
                "delivery_rate_bps": _value(window, "delivery_rate_bps"),
                "throughput_bps": (received[t] - previous_bytes) * 8 / interval if interval else 0.0,
                "state": _state(flow, t, window),
            })
            if window and window["total_rto"] is not None and window["total_rto"] > timeouts:
                events += [{"time_s": t, "flow_id": flow_id, "name": name, "event": "timeout"}] * (window["total_rto"] - timeouts)
                timeouts = window["total_rto"]
            previous_bytes, previous_time = received[t], t
    rows.sort(key=lambda row: (row["time_s"], row["flow_id"]))
    events.sort(key=lambda row: (row["time_s"], row["flow_id"]))
    return rows, events


def _value(window: dict | None, key: str) -> float:
    value = window.get(key) if window else None
    return NAN if value is None else float(value)


def _state(flow: dict[str, Any], t: float, window: dict[str, Any] | None) -> str:
    """The sender's state from its TCP_INFO sample; before the flow's start, not_started."""
    if t < flow["start_ns"] / 1e9:
        return "not_started"
    if window:
        return window["state"]
    return "on" if flow["protocol"] == "udp" else "slow_start"
