"""A scenario as the ns-3 engine's plan: the network a simulation of the same file builds
(`_core.network`), each link direction's buffer as ns-3 classes, and each flow's socket,
congestion control and application. engine/main.cc's header describes the line format."""

from __future__ import annotations

from typing import Any

from tcplab._core import ScenarioError
from tcplab.backends.ns3 import preflight

# The device queue under a queue disc: one packet, so the queue disc decides (one more packet
# waits in the device; docs/ns3-backend.md).
DEVICE_QUEUE_UNDER_DISC = "1p"
# IPv4 20 B + UDP 8 B: a datagram of `packet_size` carries that much less payload.
UDP_IP_HEADER_BYTES = 28


def write_plan(network: dict[str, Any], scenario: dict[str, Any]) -> str:
    simulation = scenario["simulation"]
    lines = [
        f"simulation {network['duration_ns']} {network['sample_interval_ns']} {simulation['seed']} {simulation.get('run', 0)}",
        f"nodes {len(network['nodes'])}",
    ]
    channels = network["channels"]
    for index in range(0, len(channels), 2):
        forward, reverse = channels[index], channels[index + 1]
        with_disc = forward["queue"]["kind"] != "droptail" or reverse["queue"]["kind"] != "droptail"
        lines.append(f"link {forward['from']} {forward['to']} {forward['delay_ns']} {reverse['delay_ns']} "
                     f"{forward['rate_bps']} {reverse['rate_bps']} {int(with_disc)}")
        for channel_index in (index, index + 1):
            lines += _queue_lines(channel_index, channels[channel_index], with_disc)
            lines += [f"delay_step {channel_index} {at} {delay}" for at, delay in channels[channel_index]["delay_schedule"]]
            if channels[channel_index]["drift"]:
                lines.append(f"drift {channel_index} " + " ".join(str(ns) for ns in channels[channel_index]["drift"]))
    defaults = preflight.parameter_defaults()
    entries = [(i, entry) for i, entry in enumerate(scenario["flows"]) for _ in range(entry.get("count", 1))]
    for flow in network["flows"]:
        index, entry = entries[flow["flow_id"]]
        lines += _flow_lines(flow, entry, f"flows.{index}", defaults)
    return "\n".join(lines) + "\n"


def _size(packets: int | None, size_bytes: int | None) -> str:
    return f"{packets}p" if packets is not None else f"{size_bytes}B"


def _queue_lines(index: int, channel: dict[str, Any], with_disc: bool) -> list[str]:
    queue = channel["queue"]
    kind, parameters = queue["kind"], queue["parameters"]
    limit = _size(queue["limit_packets"], queue["limit_bytes"])
    lines = []
    if kind == "droptail" and not with_disc:
        # The device's own DropTailQueue is the buffer: it holds only packets waiting to be sent,
        # as tcplab's (point-to-point-net-device.cc sends the head at once when idle).
        lines.append(f"device_queue {index} {limit}")
    elif kind == "droptail":
        # The other direction of this link has an AQM, so the devices stop and wake queue discs:
        # this direction's buffer becomes a FIFO disc (one packet more waits in the device).
        lines.append(f"device_queue {index} {DEVICE_QUEUE_UNDER_DISC}")
        lines.append(f"queue_disc {index} ns3::FifoQueueDisc MaxSize={limit}")
    else:
        lines.append(f"device_queue {index} {DEVICE_QUEUE_UNDER_DISC}")
        disc, attributes = _queue_disc(kind, parameters, limit, channel)
        lines.append(f"queue_disc {index} {disc} " + " ".join(f"{k}={v}" for k, v in attributes))
    if channel["loss"]:
        # The preflight allowed Bernoulli loss only: `p` per packet.
        lines.append(f"loss {index} {channel['loss']['p']!r}")
    return lines


def _queue_disc(kind: str, parameters: dict[str, float], limit: str, channel: dict[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    """ns-3 TypeId and attributes for an AQM (red-queue-disc.cc:68-212, codel-queue-disc.cc:66-105,
    fq-codel-queue-disc.cc:103-162, pie-queue-disc.cc:36-140 in ns-3.44)."""
    if kind == "step":
        # DCTCP's step marking as ns-3's DCTCP examples build it (examples/tcp/dctcp-example.cc:
        # RedQueueDisc, QW = 1, UseHardDrop false): with QW = 1 the average is the packets (or
        # bytes) queued before the arrival (red-queue-disc.cc:335-358), and without Gentle an
        # average at or above MaxTh = MinTh = K is a forced mark (370-373, 410-412). ns-3's RED
        # drops arrivals that are not ECN-capable there (tcplab's step queue keeps them), and
        # marks only with more than one packet queued (368).
        threshold = parameters.get("threshold_packets", parameters.get("threshold_bytes"))
        return "ns3::RedQueueDisc", [
            ("MaxSize", limit), ("MinTh", repr(float(threshold))), ("MaxTh", repr(float(threshold))), ("QW", "1.0"),
            ("Gentle", "false"), ("UseEcn", "true"), ("UseHardDrop", "false"),
            ("LinkBandwidth", f"{channel['rate_bps']}bps"), ("LinkDelay", f"{channel['delay_ns']}ns"),
        ]
    ecn = "true" if parameters["ecn"] else "false"
    if kind == "red":
        byte_mode = bool(parameters["byte_mode"])
        mean = parameters["mean_packet_bytes"]
        # ns-3's RED counts in its limit's unit: in byte mode the thresholds become bytes.
        scale = mean if byte_mode else 1.0
        return "ns3::RedQueueDisc", [
            ("MaxSize", limit), ("MinTh", repr(parameters["min_th"] * scale)), ("MaxTh", repr(parameters["max_th"] * scale)),
            ("QW", repr(parameters["w_q"])), ("LInterm", repr(1.0 / parameters["max_p"])),
            ("Gentle", "true" if parameters["gentle"] else "false"), ("Wait", "true" if parameters["wait"] else "false"),
            ("MeanPktSize", str(int(mean))), ("UseEcn", ecn), ("UseHardDrop", "true"),
            ("LinkBandwidth", f"{channel['rate_bps']}bps"), ("LinkDelay", f"{channel['delay_ns']}ns"),
        ]
    if kind == "codel":
        return "ns3::CoDelQueueDisc", [
            ("MaxSize", limit), ("Target", f"{int(parameters['target_ns'])}ns"),
            ("Interval", f"{int(parameters['interval_ns'])}ns"), ("UseEcn", ecn),
        ]
    if kind == "pie":
        # Timestamps for the delay (no dequeue-rate estimate), the 2% cap above 10% and ECN
        # marking up to 10%, as tcplab's; MeanPktSize is only ns-3's "two packets" in byte limits.
        return "ns3::PieQueueDisc", [
            ("MaxSize", limit), ("QueueDelayReference", f"{int(parameters['target_ns'])}ns"),
            ("Tupdate", f"{int(parameters['tupdate_ns'])}ns"), ("A", repr(parameters["alpha"])),
            ("B", repr(parameters["beta"])), ("MaxBurstAllowance", f"{int(parameters['max_burst_ns'])}ns"),
            ("UseDequeueRateEstimator", "false"), ("UseCapDropAdjustment", "true"), ("UseEcn", ecn),
            ("MarkEcnThreshold", "0.1"), ("UseDerandomization", "true" if parameters["derandomize"] else "false"),
            ("MeanPktSize", "1500"),
        ]
    # fq_codel: tcplab drops one packet per arrival over the limit; ns-3 drops up to
    # DropBatchSize from the fattest flow (fq-codel-queue-disc.cc:454-488).
    return "ns3::FqCoDelQueueDisc", [
        ("MaxSize", limit), ("Target", f"{int(parameters['target_ns'])}ns"),
        ("Interval", f"{int(parameters['interval_ns'])}ns"), ("UseEcn", ecn), ("Flows", str(int(parameters["flows"]))),
        ("DropBatchSize", "1"), ("Quantum", str(int(parameters["quantum_bytes"]))),
    ]


def _flow_lines(flow: dict[str, Any], entry: dict[str, Any], key: str, defaults: dict[str, dict[str, Any]]) -> list[str]:
    on_off = flow["on_off_ns"]
    on, off = (on_off[0], on_off[1]) if on_off else (-1, -1)
    exponential = int(bool(flow["on_off_exponential"]))
    stop = flow["stop_ns"] if flow["stop_ns"] is not None else -1
    flow_id = flow["flow_id"]
    if flow["protocol"] == "udp":
        if flow["datagram_bytes"] <= UDP_IP_HEADER_BYTES:
            raise ScenarioError(f"{key}.packet_size: {flow['datagram_bytes']}B leaves no payload after ns-3's IPv4 and "
                                f"UDP headers ({UDP_IP_HEADER_BYTES} B); give at least {UDP_IP_HEADER_BYTES + 1}B")
        return [f"udp {flow_id} {flow['source']} {flow['sink']} {flow['start_ns']} {stop} {flow['rate_bps']} "
                f"{flow['datagram_bytes']} {on} {off} {exponential}"]
    cc, tcp = flow["cc"], flow["tcp"]
    algorithm = preflight.algorithm_for(cc, key)
    preflight.check_tcp(tcp, cc, key)
    cc_attributes = preflight.algorithm_attributes(cc, entry.get("params") or {}, defaults.get(cc, {}), key)
    sender, receiver, recovery = preflight.socket_attributes(tcp)
    size = flow["size_bytes"] if flow["size_bytes"] is not None else -1
    think = flow["restart_think_time_ns"] if flow["restart_think_time_ns"] is not None else -1
    rate = flow["rate_bps"] or 0
    lines = [f"tcp {flow_id} {flow['source']} {flow['sink']} {flow['start_ns']} {stop} {size} {think} {rate} "
             f"{on} {off} {exponential} {algorithm} {recovery}"]
    lines += [f"socket {flow_id} {name}={value}" for name, value in sender]
    lines += [f"sink {flow_id} {name}={value}" for name, value in receiver]
    lines += [f"cc {flow_id} {name}={value}" for name, value in cc_attributes]
    return lines
