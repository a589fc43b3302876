"""A scenario as an ns-2.35 TCL script: the network the simulator builds (nodes, one simplex link
per link direction with its queue, routes by hop count), the flows on ns-2's agents, and a
sampler that writes what the tables need to one text file. docs/ns2-backend.md explains each
mapping; the lines the script writes are read by ``tables.py``:

- ``F t flow cwnd_pkts ssthresh_pkts srtt_s in_flight_pkts delivered_bytes`` per TCP flow and
  ``U t flow delivered_bytes delivered_packets`` per UDP flow, every sample interval;
- ``Q t channel packets bytes departed_bytes`` per link direction, every sample interval;
- ``E t flow event`` for restarting flows' transfers, ``C t flow`` when a finite transfer completes;
- in a second file, ns-2's own event trace (``$ns eventtrace-all``): ``E t src dst TCP TIMEOUT
  flow seqno cwnd`` at every expiry of a retransmission timer;
- at the end ``T flow sent_pkts sent_bytes rexmit_pkts rexmit_bytes nrexmit ecn_responses`` per TCP
  flow and ``L channel arrivals arrived_bytes departures
  departed_bytes drops dropped_bytes early_drops marks queued queued_bytes delay_mean_s delay_count
  wire_losses`` per link direction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tcplab import _core

# ns-2's DropTail drops an arrival when queue length + 1 >= limit (queue/drop-tail.cc
# DropTail::enque): it holds limit - 1 packets besides the one being sent. tcplab's limit counts
# waiting packets only, so the script gives DropTail one more. RED checks length >= limit
# (queue/red.cc REDQueue::enque) and takes the limit as it is.
DROPTAIL_EXTRA_PACKETS = 1
# ns-2's ssthresh_ is a 32-bit packet count.
UNBOUNDED_SSTHRESH_PACKETS = 1_000_000_000


@dataclass
class FlowPlan:
    """How one flow runs on ns-2: its agent and, on the Linux agent, module and parameters."""

    agent: str
    module: str | None = None
    module_parameters: dict[str, int] = field(default_factory=dict)


def seconds(nanoseconds: int | float) -> str:
    """A time for TCL, in seconds, exact to the nanosecond."""
    return f"{nanoseconds / 1e9:.9f}"


def ns2_seed(seed: int, run: int) -> int:
    """ns-2's RNG takes a seed from 1 to 2^31 - 2 (0 would draw one from the clock)."""
    return (seed * 1_000_003 + run) % 2_147_483_646 + 1


def write_script(network: dict[str, Any], scenario: dict[str, Any], plans: list[FlowPlan | None],
                 samples_path: str, events_path: str) -> str:
    simulation = scenario["simulation"]
    duration_ns = network["duration_ns"]
    interval_ns = network["sample_interval_ns"]
    lines = [
        f"# Written by tcplab {_core.__version__} from scenario '{scenario.get('name', '')}' for Debian's ns-2.35.",
        "# Run: ns THIS_FILE. What each line maps from: docs/ns2-backend.md.",
        "set ns [new Simulator]",
        f"$defaultRNG seed {ns2_seed(simulation['seed'], simulation.get('run', 0))}",
        f"set out [open {{{samples_path}}} w]",
        # The agents' event trace: a line per TIMEOUT, FAST_RETX and SLOW_START (tcp.cc trace_event).
        f"$ns eventtrace-all [open {{{events_path}}} w]",
        "",
        "# Nodes, in the simulator's order.",
    ]
    lines += [f"set n({index}) [$ns node] ;# {node['name']}" for index, node in enumerate(network["nodes"])]
    lines += ["", "# One simplex link per link direction, with its queue and monitor."]
    for index, channel in enumerate(network["channels"]):
        lines += _channel(index, channel)
    lines += ["", "# Flows."]
    lines += _flow_procs(network["flows"], plans)
    lines += _sampler(network, interval_ns, duration_ns)
    return "\n".join(lines) + "\n"


def _channel(index: int, channel: dict[str, Any]) -> list[str]:
    queue = channel["queue"]
    ends = f"$n({channel['from']}) $n({channel['to']})"
    lines = [f"# {channel['link']} {channel['direction']}"]
    if queue["kind"] == "red":
        lines += _red_defaults(queue)
        ns2_queue, limit = "RED", _red_limit(queue)
    else:
        if queue["limit_bytes"] is not None:
            # Byte limit: DropTail drops when bytes + size >= limit x mean_pktsize_; with a mean
            # of 1 byte and one byte more, it admits exactly while bytes + size <= tcplab's limit.
            lines += ["Queue/DropTail set queue_in_bytes_ true", "Queue/DropTail set mean_pktsize_ 1"]
            limit = queue["limit_bytes"] + 1
        else:
            lines += ["Queue/DropTail set queue_in_bytes_ false"]
            limit = queue["limit_packets"] + DROPTAIL_EXTRA_PACKETS
        ns2_queue = "DropTail"
    lines += [
        f"$ns simplex-link {ends} {channel['rate_bps']} {seconds(channel['delay_ns'])} {ns2_queue}",
        f"$ns queue-limit {ends} {limit}",
        # ns-2's static routes count hops, as the simulator's do first (preflight refuses a network
        # where two paths of a flow have as few hops, which the simulator would part by delay).
        f"$ns cost {ends} 1",
        f"set qm({index}) [new QueueMonitor/ED]",
        f"set ds({index}) [new Samples]",
        f"$qm({index}) set-delay-samples $ds({index})",
        f"set l [$ns link {ends}]",
        f"$l attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qm({index})",
    ]
    if queue["kind"] == "red":
        lines += [
            "set ed [new SnoopQueue/EDrop]",
            f"$ed set-monitor $qm({index})",
            "[$l queue] early-drop-target $ed",
            "$ed target [$ns set nullAgent_]",
        ]
    loss = channel.get("loss")
    if loss:
        # At the link's end (link-lossmodel), so a lost packet used the link's time, as in the
        # simulator, where loss acts on packets leaving the transmitter.
        lines += [
            f"set em({index}) [new ErrorModel]",
            f"$em({index}) unit pkt",
            f"$em({index}) set rate_ {loss['p']!r}",
            f"$em({index}) ranvar [new RandomVariable/Uniform]",
            f"$ns link-lossmodel $em({index}) {ends}",
            # link-lossmodel sends the losses to the link's drop target, where the queue monitor
            # would count them as queue drops: count them apart instead.
            f"set lost({index}) [new Agent/LossMonitor]",
            f"$em({index}) drop-target $lost({index})",
        ]
    return lines


def _red_limit(queue: dict[str, Any]) -> int:
    parameters = queue["parameters"]
    if queue["limit_packets"] is not None:
        return queue["limit_packets"]
    # Byte limit in byte mode: ns-2 takes limit x mean_pktsize_ bytes.
    return max(round(queue["limit_bytes"] / parameters["mean_packet_bytes"]), 1)


def _red_defaults(queue: dict[str, Any]) -> list[str]:
    """RED's settings as class defaults, set just before its link is created (the queue reads them
    when it is made and when the link tells it the rate)."""
    p = queue["parameters"]
    byte_mode = bool(p["byte_mode"])
    # ns-2 keeps thresholds in packets and multiplies them by mean_pktsize_ in byte mode.
    scale = p["mean_packet_bytes"] if byte_mode else 1.0
    mark_p = p["mark_p"]
    switch = {True: "true", False: "false"}
    return [
        f"Queue/RED set thresh_ {p['min_th'] / scale!r}",
        f"Queue/RED set maxthresh_ {p['max_th'] / scale!r}",
        f"Queue/RED set q_weight_ {p['w_q']!r}",
        f"Queue/RED set linterm_ {1.0 / p['max_p']!r}",
        f"Queue/RED set gentle_ {switch[bool(p['gentle'])]}",
        f"Queue/RED set wait_ {switch[bool(p['wait'])]}",
        f"Queue/RED set setbit_ {switch[bool(p['ecn'])]}",
        f"Queue/RED set bytes_ {switch[byte_mode]}",
        f"Queue/RED set queue_in_bytes_ {switch[byte_mode]}",
        f"Queue/RED set mean_pktsize_ {round(p['mean_packet_bytes'])}",
        # mark_p 1 is tcplab's "always mark": ns-2's use_mark_p_ false (which also keeps its forced
        # drops above max_th); below 1, use_mark_p_ with mark_p_ (ns-2.35's default 0.1).
        f"Queue/RED set use_mark_p_ {switch[mark_p < 1.0]}",
        f"Queue/RED set mark_p_ {mark_p!r}",
        "Queue/RED set adaptive_ 0",
        "Queue/RED set cautious_ 0",
        "Queue/RED set drop_tail_ true",
        "Queue/RED set summarystats_ false",
    ]


def _flow_procs(flows: list[dict[str, Any]], plans: list[FlowPlan | None]) -> list[str]:
    lines = [
        "proc tcplab_sink_bytes {i} {",
        "    global cur_sink done_bytes",
        "    set b $done_bytes($i)",
        "    if {$cur_sink($i) != \"\"} { set b [expr {$b + [$cur_sink($i) set bytes_]}] }",
        "    return $b",
        "}",
        # ns-2 calls an agent's done when every byte it was given is acknowledged.
        "Agent/TCP instproc done {} {",
        "    global ns out think cur_sink done_bytes packet_bytes",
        "    set i [$self set tcplab_flow_]",
        "    if {[info exists think($i)]} {",
        "        puts $out \"E [$ns now] $i transfer_complete\"",
        "        set done_bytes($i) [expr {$done_bytes($i) + [$cur_sink($i) set bytes_]}]",
        "        set cur_sink($i) \"\"",
        "        $ns at [expr {[$ns now] + $think($i)}] \"tcplab_start $i\"",
        "    } else {",
        "        puts $out \"C [$ns now] $i\"",
        "    }",
        "}",
    ]
    starts = []
    for flow, plan in zip(flows, plans):
        i = flow["flow_id"]
        if flow["protocol"] == "udp":
            lines += _udp_flow(flow)
            starts.append(f"$ns at {seconds(flow['start_ns'])} \"$cbr({i}) start\"")
            if flow["stop_ns"] is not None:
                starts.append(f"$ns at {seconds(flow['stop_ns'])} \"$cbr({i}) stop\"")
            continue
        lines += _tcp_flow(flow, plan)
        starts.append(f"$ns at {seconds(flow['start_ns'])} \"tcplab_start {i}\"")
        if flow["stop_ns"] is not None:
            starts.append(f"$ns at {seconds(flow['stop_ns'])} \"$cur_ftp({i}) stop\"")
    return lines + starts


def _tcp_flow(flow: dict[str, Any], plan: FlowPlan) -> list[str]:
    i, tcp = flow["flow_id"], flow["tcp"]
    settings = {
        "fid_": i,
        "packetSize_": tcp["mss"],
        # tcplab's header counts every header byte, options included; ns-2 would add a 10-byte
        # timestamp option (ts_option_size_) to its base header when timestamps_ is on.
        "tcpip_base_hdr_size_": tcp["header_bytes"],
        "ts_option_size_": 0,
        # The one-way agents limit the span from the cumulative ACK to window_ (a receive window)
        # and cap cwnd at maxcwnd_; the Linux agent makes window_ its cwnd clamp and first
        # ssthresh (tcp-linux.cc load_to_linux_once) and has no receive window.
        "window_": tcp["cwnd_clamp_segments"] if plan.module is not None else tcp["receive_window"] // tcp["mss"],
        "maxcwnd_": 0 if plan.module is not None else tcp["cwnd_clamp_segments"] or 0,
        "windowInit_": tcp["initial_window_segments"],
        "tcpTick_": tcp["clock_granularity"] / 1e9,
        "minrto_": tcp["min_rto"] / 1e9,
        "maxrto_": tcp["max_rto"] / 1e9,
        "rtxcur_init_": tcp["initial_rto"] / 1e9,
        "numdupacks_": tcp["duplicate_threshold"],
        "singledup_": int(tcp["limited_transmit"]),
        # Per-ACK RTT samples in ns-2 come from timestamps; without them it times one segment
        # per round trip (tcp.cc rtt_active_/rtt_seq_). tcplab refuses timestamps with timed
        # segments, so the sampling decides.
        "timestamps_": "true" if tcp["rtt_sampling"] == "every_ack" else "false",
        "ecn_": int(tcp["ecn"]),
        "syn_": "true" if tcp["syn"] else "false",
        # delay_growth_ holds cwnd at its initial value until the handshake ends; without a SYN
        # it would skip growth on the first ACK, which tcplab's sender does not.
        "delay_growth_": "true" if tcp["syn"] else "false",
    }
    # Always set: an agent takes ssthresh_ from window_ when it is created (tcp.cc reset()), before
    # the script sets window_, so ns-2's own initial ssthresh is window_'s class default, 20
    # packets. tcplab's unbounded ssthresh is a billion packets here.
    settings["ssthresh_"] = tcp["initial_ssthresh_segments"] or UNBOUNDED_SSTHRESH_PACKETS
    sink = _sink_class(plan, tcp)
    size = flow["size_bytes"] or 0
    lines = [f"set size({i}) {size}", f"set done_bytes({i}) 0", f"set cur_sink({i}) \"\""]
    if flow["restart_think_time_ns"] is not None:
        lines.append(f"set think({i}) {seconds(flow['restart_think_time_ns'])}")
    lines += [f"proc tcplab_connect_{i} {{}} {{", "    global ns n"]
    lines.append(f"    set tcp [new {plan.agent}]")
    lines += [f"    $tcp set {name} {value}" for name, value in settings.items()]
    lines += [
        f"    $tcp set tcplab_flow_ {i}",
        f"    $ns attach-agent $n({flow['source']}) $tcp",
        f"    set sink [new {sink}]",
    ]
    if tcp["delayed_ack"]:
        lines.append(f"    $sink set interval_ {tcp['delayed_ack_timeout'] / 1e9!r}")
    lines += [f"    $ns attach-agent $n({flow['sink']}) $sink", "    $ns connect $tcp $sink"]
    if plan.module is not None:
        lines += [f"    $tcp set_ca_default_param {plan.module} {name} {value}"
                  for name, value in sorted(plan.module_parameters.items())]
        lines.append(f"    $tcp select_ca {plan.module}")
    lines += ["    set ftp [new Application/FTP]", "    $ftp attach-agent $tcp", "    return [list $tcp $sink $ftp]", "}"]
    return lines


def _sink_class(plan: FlowPlan, tcp: dict[str, Any]) -> str:
    sack = plan.module is not None or plan.agent == "Agent/TCP/Sack1"
    base = "Agent/TCPSink/Sack1" if sack else "Agent/TCPSink"
    return base + "/DelAck" if tcp["delayed_ack"] else base


def _udp_flow(flow: dict[str, Any]) -> list[str]:
    i, size = flow["flow_id"], flow["datagram_bytes"]
    return [
        f"set udp({i}) [new Agent/UDP]",
        f"$udp({i}) set fid_ {i}",
        f"$udp({i}) set packetSize_ {size}",
        f"$ns attach-agent $n({flow['source']}) $udp({i})",
        f"set lm({i}) [new Agent/LossMonitor]",
        f"$ns attach-agent $n({flow['sink']}) $lm({i})",
        f"$ns connect $udp({i}) $lm({i})",
        f"set cbr({i}) [new Application/Traffic/CBR]",
        # The simulator's CBR: one datagram of this wire size every size / rate (ns-2's UDP adds
        # no header of its own).
        f"$cbr({i}) set packetSize_ {size}",
        f"$cbr({i}) set rate_ {flow['rate_bps']}",
        f"$cbr({i}) set random_ 0",
        f"$cbr({i}) attach-agent $udp({i})",
    ]


def _sampler(network: dict[str, Any], interval_ns: int, duration_ns: int) -> list[str]:
    flows, channels = network["flows"], network["channels"]
    tcp_ids = [f["flow_id"] for f in flows if f["protocol"] == "tcp"]
    udp_ids = [f["flow_id"] for f in flows if f["protocol"] == "udp"]
    packet_bytes = {f["flow_id"]: f["tcp"]["mss"] + f["tcp"]["header_bytes"] for f in flows if f["protocol"] == "tcp"}
    mss = {f["flow_id"]: f["tcp"]["mss"] for f in flows if f["protocol"] == "tcp"}
    lines = [
        "",
        "# Starts a TCP flow's next connection (its first, or a restarting flow's next transfer).",
        "proc tcplab_start {i} {",
        "    global ns out size think cur_tcp cur_sink cur_ftp agents",
        "    set parts [tcplab_connect_$i]",
        "    set cur_tcp($i) [lindex $parts 0]",
        "    set cur_sink($i) [lindex $parts 1]",
        "    set cur_ftp($i) [lindex $parts 2]",
        "    lappend agents($i) $cur_tcp($i)",
        "    if {[info exists think($i)]} { puts $out \"E [$ns now] $i transfer_start\" }",
        "    if {$size($i) > 0} { $cur_ftp($i) send $size($i) } else { $cur_ftp($i) start }",
        "}",
    ]
    lines += [f"set packet_bytes({i}) {packet_bytes[i]}" for i in tcp_ids]
    lines += [f"set mss({i}) {mss[i]}" for i in tcp_ids]
    lines += [f"set cur_tcp({i}) \"\"" for i in tcp_ids]
    lines += [
        "",
        "# Every sample interval: each flow's window and delivery, each queue.",
        "proc tcplab_sample {} {",
        "    global ns out cur_tcp packet_bytes mss lm qm",
        "    set t [$ns now]",
    ]
    for i in tcp_ids:
        lines += [
            f"    set tcp $cur_tcp({i})",
            # The sink counts each in-order packet's size, headers included; a transfer's last
            # packet can be shorter than the others, so its count is rounded, not truncated.
            f"    set delivered [expr {{round(double([tcplab_sink_bytes {i}]) / $packet_bytes({i})) * $mss({i})}}]",
            "    if {$tcp != \"\"} {",
            # t_srtt_ is in ticks scaled by 8 (tcp.h T_SRTT_BITS).
            "        set srtt [expr {[$tcp set srtt_] * [$tcp set tcpTick_] / 8.0}]",
            "        set flight [expr {[$tcp set maxseq_] - [$tcp set ack_]}]",
            f"        puts $out \"F $t {i} [$tcp set cwnd_] [$tcp set ssthresh_] $srtt $flight $delivered\"",
            "    } else {",
            f"        puts $out \"F $t {i} nan nan nan nan $delivered\"",
            "    }",
        ]
    for i in udp_ids:
        lines.append(f"    puts $out \"U $t {i} [$lm({i}) set bytes_] [$lm({i}) set npkts_]\"")
    for c in range(len(channels)):
        lines.append(f"    puts $out \"Q $t {c} [$qm({c}) set pkts_] [$qm({c}) set size_] [$qm({c}) set bdepartures_]\"")
    lines += [
        "    puts stderr \"progress $t\"",
        "}",
        "",
        "# A Samples object's mean; it has none (and fails) before its first sample.",
        "proc tcplab_mean {samples} { if {[$samples cnt] > 0} { return [$samples mean] } else { return 0 } }",
        "",
        "proc tcplab_finish {} {",
        "    global ns out agents qm ds lost",
        "    tcplab_sample",
    ]
    counters = ("ndatapack_", "ndatabytes_", "nrexmitpack_", "nrexmitbytes_", "nrexmit_", "necnresponses_")
    for i in tcp_ids:
        lines += [
            "    set sums {0 0 0 0 0 0}",
            f"    if {{[info exists agents({i})]}} {{",
            f"        foreach a $agents({i}) {{",
            "            set next {}",
            f"            foreach v {{{' '.join(counters)}}} s $sums {{ lappend next [expr {{$s + [$a set $v]}}] }}",
            "            set sums $next",
            "        }",
            "    }",
            f"    puts $out \"T {i} $sums\"",
        ]
    for c, channel in enumerate(channels):
        wire = f"[$lost({c}) set npkts_]" if channel.get("loss") else "0"
        fields = " ".join(f"[$qm({c}) set {v}]" for v in (
            "parrivals_", "barrivals_", "pdepartures_", "bdepartures_", "pdrops_", "bdrops_", "epdrops_", "pmarks_",
            "pkts_", "size_"))
        lines.append(f"    puts $out \"L {c} {fields} [tcplab_mean $ds({c})] [$ds({c}) cnt] {wire}\"")
    lines += [
        "    close $out",
        "    exit 0",
        "}",
        "",
    ]
    lines += [
        "# Samples at k x interval from 0 (as the simulator's); the end's own is taken by tcplab_finish.",
        "proc tcplab_next_sample {k} {",
        "    global ns",
        "    tcplab_sample",
        f"    set t [expr {{($k + 1) * {interval_ns / 1e9!r}}}]",
        f"    if {{$t < {duration_ns / 1e9!r} - 1e-12}} {{ $ns at $t \"tcplab_next_sample [expr {{$k + 1}}]\" }}",
        "}",
    ]
    lines.append("$ns at 0.0 \"tcplab_next_sample 0\"")
    lines += [f"$ns at {seconds(duration_ns)} tcplab_finish", "$ns run"]
    return lines
