"""What the ns-3 back-end checks before it writes a plan: a scenario whose every key ns-3 3.44 can
express as the simulator runs it, and each flow's ns-3 classes and attribute values. Each refusal
names the key, its value and what ns-3 allows. docs/ns3-backend.md lists every mapping and where
in ns-3 each fact comes from (the ns-3.44 tag of ns-3-dev: src/internet/model/...).

The values given to ns-3 are the scenario's, never ns-3's own defaults: where an ns-3 default
differs from tcplab's (Scalable's AIFactor 50, Hybla's RRTT 50 ms, BIC's SmoothPart 5, ...), the
plan sets the scenario's value, so both engines run the same algorithm settings.
"""

from __future__ import annotations

import tomllib
from typing import Any

from tcplab import _core
from tcplab._core import ScenarioError
from tcplab.backends.preflight_common import check_links, check_single_path
from tcplab.backends.preflight_common import show as _show

# tcplab algorithm -> ns-3 3.44 TypeId (src/internet/model/tcp-*.cc). `reno` is Linux's Reno
# (TcpLinuxReno: ssthresh from cwnd, no growth when not cwnd-limited); `newreno` is RFC 5681's
# (TcpNewReno: one segment per ACK in slow start, ssthresh from the bytes in flight).
ALGORITHMS = {
    "newreno": "ns3::TcpNewReno", "reno": "ns3::TcpLinuxReno", "cubic": "ns3::TcpCubic", "bic": "ns3::TcpBic",
    "highspeed": "ns3::TcpHighSpeed", "hybla": "ns3::TcpHybla", "scalable": "ns3::TcpScalable",
    "vegas": "ns3::TcpVegas", "veno": "ns3::TcpVeno", "westwood": "ns3::TcpWestwoodPlus", "bbr": "ns3::TcpBbr",
    "htcp": "ns3::TcpHtcp", "illinois": "ns3::TcpIllinois", "yeah": "ns3::TcpYeah",
    "ledbat": "ns3::TcpLedbat", "lp": "ns3::TcpLp",
    # TCP-RTA and TCP-do were written for ns-3 but never published: the engine's own
    # (engine/tcp-rta.cc, engine/tcp-do.cc).
    "rta": "tcplab::TcpRta", "tcp_do": "tcplab::TcpDo",
    # TcpDctcp switches the socket to DCTCP's ECN (DctcpEcn: every packet ECT, the receiver's
    # CE state echoed, tcp-dctcp.cc:105-114, tcp-socket-base.cc:75-82).
    "dctcp": "ns3::TcpDctcp",
}


def _nanoseconds_text(value: Any) -> str:
    # A resolved duration ("25ms") is already in a unit ns-3's Time parser reads.
    return str(value)


def _ns3_bool(value: Any) -> str:
    return "true" if value else "false"


# tcplab parameter -> (ns-3 attribute, conversion to ns-3's text). Facts: tcp-cubic.cc:28-105,
# tcp-bic.cc:22-59, tcp-hybla.cc:27-31, tcp-scalable.cc:37-46, tcp-vegas.cc:34-48,
# tcp-veno.cc:34-38, tcp-bbr.cc:37-56, tcp-htcp.cc:34-48, tcp-illinois.cc:35-74, tcp-yeah.cc:33-72,
# tcp-ledbat.cc:31-60 (ns-3.44).
ATTRIBUTES: dict[str, dict[str, tuple[str, Any]]] = {
    "cubic": {
        "beta": ("Beta", str), "c": ("C", str), "fast_convergence": ("FastConvergence", _ns3_bool),
        "tcp_friendliness": ("TcpFriendliness", _ns3_bool), "hystart": ("HyStart", _ns3_bool),
        "hystart_low_window": ("HyStartLowWindow", str), "hystart_ack_delta": ("HyStartAckDelta", _nanoseconds_text),
        "cnt_before_loss": ("CntClamp", str),
    },
    "bic": {
        "beta": ("Beta", str), "b": ("BinarySearchCoefficient", str), "max_increment": ("MaxIncr", str),
        "low_window": ("LowWnd", str), "smooth_part": ("SmoothPart", str),
        "fast_convergence": ("FastConvergence", _ns3_bool),
    },
    "hybla": {"rtt0": ("RRTT", _nanoseconds_text)},
    "scalable": {"ai_count": ("AIFactor", str), "md_shift": ("MDFactor", lambda shift: str(2.0 ** -int(shift)))},
    "vegas": {"alpha": ("Alpha", str), "beta": ("Beta", str), "gamma": ("Gamma", str)},
    "veno": {"beta": ("Beta", str)},
    "htcp": {"delta_l": ("DeltaL", _nanoseconds_text)},
    "illinois": {
        "alpha_min": ("AlphaMin", str), "alpha_max": ("AlphaMax", str), "beta_min": ("BetaMin", str),
        "beta_max": ("BetaMax", str), "win_thresh": ("WinThresh", str), "theta": ("Theta", str),
    },
    "yeah": {
        "alpha": ("Alpha", str), "gamma": ("Gamma", str), "delta": ("Delta", str), "epsilon": ("Epsilon", str),
        "phi": ("Phy", str), "rho": ("Rho", str), "zeta": ("Zeta", str), "scalable_ai_count": ("StcpAiFactor", str),
    },
    # tcp-dctcp.cc:32-41: DctcpShiftG is g itself (0.0625 = 2^-4), DctcpAlphaOnInit a fraction.
    "dctcp": {"shift_g": ("DctcpShiftG", lambda shift: repr(2.0 ** -int(shift))), "alpha_on_init": ("DctcpAlphaOnInit", str)},
    # TcpLedbat's lists keep one entry fewer than their length (AddDelay erases the oldest once
    # the size reaches the length, tcp-ledbat.cc:246-250): tcplab's N samples are ns-3's N + 1.
    "ledbat": {
        "target": ("TargetDelay", _nanoseconds_text), "gain": ("Gain", str),
        "base_history": ("BaseHistoryLen", lambda n: str(int(n) + 1)),
        "current_filter": ("NoiseFilterLen", lambda n: str(int(n) + 1)),
        "min_cwnd": ("MinCwnd", str), "slow_start": ("SSParam", lambda on: "yes" if on else "no"),
    },
    "rta": {
        "upper_threshold": ("UpperThreshold", _nanoseconds_text), "lower_threshold": ("LowerThreshold", _nanoseconds_text),
        "rtt0": ("Rtt0", _nanoseconds_text), "slow_start_by_segments": ("SlowStartBySegments", _ns3_bool),
        "byte_counted_avoidance": ("ByteCountedAvoidance", _ns3_bool),
        "two_thirds_ssthresh": ("TwoThirdsSsthresh", _ns3_bool), "bdp_boost": ("BdpBoost", _ns3_bool),
        "bdp_boost_factor": ("BdpBoostFactor", str), "hybla_count_acked_segments": ("HyblaCountAckedSegments", _ns3_bool),
    },
    "tcp_do": {
        "oscillation_delta": ("OscillationDelta", _nanoseconds_text), "window": ("Window", _nanoseconds_text),
        "initial_threshold": ("InitialThreshold", str), "calm_increase": ("CalmIncrease", str),
        "calm_increase_per": ("CalmIncreasePer", lambda per: {"rtt": "Rtt", "window": "Window"}[per]),
        "calm_threshold_factor": ("CalmThresholdFactor", str), "rtt_history": ("RttHistory", str),
        "rtt_rise": ("RttRise", str),
    },
    "bbr": {
        "high_gain": ("HighGain", str), "bw_window_rounds": ("BwWindowLength", str),
        "min_rtt_window": ("RttWindowLength", _nanoseconds_text), "probe_rtt_duration": ("ProbeRttDuration", _nanoseconds_text),
    },
}

# Parameters that together make one ns-3 attribute (CUBIC's two HyStart detectors: HyStartDetect).
JOINT_ATTRIBUTES = {"cubic": ("hystart_ack_train", "hystart_delay")}

# Parameters ns-3 hard-codes: the value its class has and where. The scenario must have the same
# value (its default or a set one), or the engines would run different algorithms.
CONSTANTS: dict[str, dict[str, tuple[Any, str]]] = {
    "newreno": {
        "abc_limit": (1, "TcpNewReno grows one segment per ACK in slow start (tcp-congestion-ops.cc:156-161)"),
        "freeze_when_not_cwnd_limited": (False, "TcpNewReno grows whether cwnd-limited or not"),
        "reduction": ("rfc5681", "TcpNewReno halves the bytes in flight (tcp-congestion-ops.cc:233-238)"),
    },
    "reno": {"freeze_when_not_cwnd_limited": (True, "TcpLinuxReno always freezes (tcp-linux-reno.h:85)")},
    "dctcp": {
        "arithmetic": ("float", "TcpDctcp keeps alpha as a double: alpha = (1 - g) alpha + g F (tcp-dctcp.cc:148)"),
        "loss_response": ("alpha", "TcpDctcp::GetSsThresh returns (1 - alpha / 2) cwnd for losses too "
                                   "(tcp-dctcp.cc:124)"),
        "freeze_when_not_cwnd_limited": (False, "TcpDctcp::Init turns TcpLinuxReno's freeze off "
                                                "(SetSuppressIncreaseIfCwndLimited(false), tcp-dctcp.cc:113)"),
    },
    "cubic": {
        "freeze_when_not_cwnd_limited": (True, "TcpCubic always freezes (tcp-cubic.cc:187-192)"),
        "max_increment": (0, "TcpCubic has no Smax"),
        "cnt_before_loss_rule": ("at_most", "TcpCubic caps cnt at CntClamp (tcp-cubic.cc:321-324)"),
        "min_cnt": (2, "TcpCubic's smallest cnt is 2 (tcp-cubic.cc:348)"),
        "rtt_lookahead": (True, "TcpCubic looks one delayMin ahead (tcp-cubic.cc:275)"),
        "cnt_divisor": (1, "TcpCubic does not divide cnt"),
    },
    "bic": {
        "freeze_when_not_cwnd_limited": (False, "TcpBic grows whether cwnd-limited or not (tcp-bic.cc:90-126)"),
        "cnt_divisor": (1, "TcpBic does not divide cnt"),
    },
    "highspeed": {
        "low_window": (38, "the first row of TcpHighSpeed's table (tcp-highspeed.cc:147-150)"),
        "high_window": (83000, "TcpHighSpeed's table"),
        "high_decrease": (0.1, "TcpHighSpeed's table"),
        "freeze_when_not_cwnd_limited": (False, "TcpHighSpeed grows whether cwnd-limited or not"),
    },
    "hybla": {
        "freeze_when_not_cwnd_limited": (False, "TcpHybla grows whether cwnd-limited or not"),
        "count_acked_segments": (True, "TcpHybla::CongestionAvoidance adds rho^2 / cwnd per acknowledged segment "
                                       "(tcp-hybla.cc:118-130)"),
    },
    "scalable": {"freeze_when_not_cwnd_limited": (False, "TcpScalable grows whether cwnd-limited or not")},
    "veno": {"freeze_when_not_cwnd_limited": (False, "TcpVeno grows whether cwnd-limited or not")},
    "vegas": {"freeze_when_not_cwnd_limited": (False, "TcpVegas falls back on TcpNewReno::IncreaseWindow, which grows "
                                                      "whether cwnd-limited or not")},
    "westwood": {
        "freeze_when_not_cwnd_limited": (False, "TcpWestwoodPlus grows whether cwnd-limited or not"),
        "min_sample_window": (None, "TcpWestwoodPlus takes one sample per smoothed RTT, with no floor "
                                    "(tcp-westwood-plus.cc:96-101)"),
    },
    "htcp": {
        "freeze_when_not_cwnd_limited": (False, "TcpHtcp grows whether cwnd-limited or not (tcp-htcp.cc:104-116)"),
        "rtt_scaling": (False, "TcpHtcp's alpha has no RTT scaling (tcp-htcp.cc:118-142)"),
        "bandwidth_switch": (None, "TcpHtcp has its own throughput test instead: beta = RTTmin / RTTmax, unclamped, "
                                   "only when the throughput rose since the last event by at most ThroughputRatio "
                                   "in integer arithmetic (tcp-htcp.cc:145-161)"),
    },
    "illinois": {"freeze_when_not_cwnd_limited": (False, "TcpIllinois grows whether cwnd-limited or not "
                                                         "(tcp-illinois.cc:172-211)")},
    "yeah": {"freeze_when_not_cwnd_limited": (False, "TcpYeah grows whether cwnd-limited or not "
                                                     "(tcp-yeah.cc:193-212)")},
    "ledbat": {
        "allowed_increase": (0, "TcpLedbat caps cwnd at the flight before the ACK, max_cwnd = m_highTxMark - "
                                "m_lastAckedSeq + segmentsAcked * segmentSize (tcp-ledbat.cc:218-220)"),
    },
    "lp": {
        "threshold_percent": (15, "TcpLp's threshold is m_owdMin + 15 * (m_owdMax - m_owdMin) / 100 (tcp-lp.cc:183)"),
        "inference_rtts": (3, "TcpLp's inference time is 3 * (now - TSecr) (tcp-lp.cc:169)"),
        "reset_range": (True, "TcpLp restarts d_min = sowd, d_max = 2 sowd after each cut (tcp-lp.cc:197-199)"),
        "freeze_when_not_cwnd_limited": (False, "TcpLp grows through TcpNewReno, whether cwnd-limited or not "
                                                "(tcp-lp.cc:71-79, tcp-congestion-ops.cc:177-187)"),
    },
    "rta": {
        "rho_from": (None, "ns-3 hands the algorithm one RTT, the smoothed one, so rho comes from it either way"),
    },
    "bbr": {
        "drain_gain": (None, "TcpBbr's DRAIN gain is 1 / HighGain (tcp-bbr.cc:326)"),
        "quantization_budget": (None, "TcpBbr always adds 3 send quanta of one segment, tcp-bbr.cc:468"),
        "cwnd_gain": (2.0, "TcpBbr's PROBE_BW cwnd gain (tcp-bbr.cc:336)"),
        "pacing_margin": (0.01, "tcp-bbr.h:391"),
        "full_bw_threshold": (1.25, "tcp-bbr.cc:306"),
        "full_bw_rounds": (3, "tcp-bbr.cc:314"),
        "min_cwnd": (4, "tcp-bbr.cc:725"),
        "extra_acked_gain": (1.0, "tcp-bbr.h:381"),
    },
}


def algorithm_for(cc: str, key: str) -> str:
    if cc in ALGORITHMS:
        return ALGORITHMS[cc]
    raise ScenarioError(f"{key}.cc: '{cc}' has no counterpart in ns-3 3.44; the ns-3 back-end runs "
                        + ", ".join(sorted(ALGORITHMS)))


def algorithm_attributes(cc: str, params: dict[str, Any], defaults: dict[str, Any], key: str) -> list[tuple[str, str]]:
    """The ns-3 attributes that give the algorithm the scenario's parameter values (``params``
    is resolved: every parameter, defaults included). A value that differs from one ns-3
    hard-codes is refused; a parameter ns-3 has no counterpart for runs only at tcplab's default
    (docs/ns3-backend.md names what ns-3 does instead)."""
    values = {**defaults, **params}
    attributes = []
    for name, value in values.items():
        if name in ATTRIBUTES.get(cc, {}):
            attribute, convert = ATTRIBUTES[cc][name]
            attributes.append((attribute, convert(value)))
        elif name in JOINT_ATTRIBUTES.get(cc, ()):
            continue
        elif name in CONSTANTS.get(cc, {}) and CONSTANTS[cc][name][0] is not None:
            fixed, where = CONSTANTS[cc][name]
            if value != fixed:
                raise ScenarioError(f"{key}.params.{name}: {_show(value)} cannot run on ns-3 ({where}); "
                                    f"set it to {_show(fixed)}")
        elif value != defaults.get(name):
            where = CONSTANTS.get(cc, {}).get(name, (None, f"{ALGORITHMS[cc]} has no counterpart"))[1]
            raise ScenarioError(f"{key}.params.{name}: {_show(value)} cannot run on ns-3 ({where}); remove the key "
                                f"(tcplab's default {_show(defaults.get(name))} runs, docs/ns3-backend.md says how ns-3 differs)")
    if cc == "cubic":
        attributes.append(("HyStartDetect", _hystart_detect(values)))
    return attributes


def _hystart_detect(values: dict[str, Any]) -> str:
    train, delay = values.get("hystart_ack_train", True), values.get("hystart_delay", True)
    return {(True, True): "BOTH", (True, False): "PACKET_TRAIN", (False, True): "DELAY"}.get((train, delay), "BOTH")


def parameter_defaults() -> dict[str, dict[str, Any]]:
    """Every algorithm's parameter defaults as values (`tcplab algorithms`)."""
    return {entry["name"]: {p["name"]: tomllib.loads(f"v = {p['default']}")["v"] for p in entry["params"]}
            for entry in _core.algorithms()}


# TCP options ns-3's TcpSocketBase cannot have, with the value it does have (lines in
# tcp-socket-base.cc of ns-3.44).
_TCP_FIXED = {
    "rack": (False, "TcpSocketBase has no RACK"),
    "tail_loss_probe": (False, "TcpSocketBase sends no tail loss probes"),
    "frto": (False, "TcpSocketBase has no F-RTO"),
    "undo": (False, "TcpSocketBase never undoes a reduction"),
    "quick_ack_segments": (0, "ns-3's receiver has no quick-ACK mode"),
    "ack_policy": ("counted", "TcpSocketBase ACKs every DelAckCount segments or on its timer"),
    "ack_delay": ("none", "receiver-side delay control runs on the simulator only"),
    "rto_formula": ("rfc6298", "RttMeanDeviation with RTO = SRTT + max(G, 4 RTTVAR), tcp-socket-base.cc:3801"),
    "rtt_sampling": ("every_ack", "every ACK that covers timed data gives a sample, tcp-socket-base.cc:3717-3753"),
    "reduction_base": ("pipe", "EnterRecovery and EnterCwr reduce from BytesInFlight(), tcp-socket-base.cc:1715-1717, 1655"),
    "algorithm_rtt": ("smoothed", "TcpSocketBase hands every algorithm but BBR the smoothed RTT, "
                                  "tcp-socket-base.cc:2038-2228 PktsAcked(..., m_tcb->m_srtt)"),
    "ecn_response": ("linux", "EnterCwr reduces once per window, tcp-socket-base.cc:1652-1676"),
    "ect_retransmissions": (False, "retransmissions are not ECN-capable, tcp-socket-base.cc:65-73"),
    "rto_restart": ("new_data", "NewAck restarts the timer, tcp-socket-base.cc:3813-3835"),
    "syn": (True, "ns-3 always opens a connection with a handshake"),
    "cwnd_clamp_segments": (None, "TcpSocketBase has no cwnd clamp"),
    "max_rto": (60_000_000_000, "the 60 s cap on a doubled RTO is hard-coded, tcp-socket-base.cc:3950-3951"),
    "pacing": (False, "the back-end paces only BBR, which paces itself in ns-3"),
    "gso": (False, "TcpSocketBase sends one segment at a time and never defers for TSO"),
}
_ECN_ONLY = ("ecn_response", "ect_retransmissions")
_TCP_KEYS = {"quick_ack_segments": "quick_acks", "cwnd_clamp_segments": "cwnd_clamp"}
_TCP_VALUES = {"max_rto": "60s", "cwnd_clamp_segments": "unset"}
# ns-3 aborts a connection after DataRetries consecutive timeouts (6, tcp-socket-base.cc:3904);
# tcplab never gives up, so the back-end allows as many as a run can have.
DATA_RETRIES = 1_000_000


def check_tcp(tcp: dict[str, Any], cc: str, key: str) -> None:
    for field, (allowed, why) in _TCP_FIXED.items():
        if field in _ECN_ONLY and not tcp["ecn"]:
            continue
        if field in ("pacing", "algorithm_rtt") and cc == "bbr":
            # TcpBbr paces itself and reads each ACK's sample (tcp-bbr.cc:172-176, 358-367); so
            # does tcplab's BBR, whatever these keys say.
            continue
        if field == "ect_retransmissions" and cc == "dctcp":
            # TcpDctcp's DctcpEcn mode sends every packet ECN-capable (tcp-socket-base.cc:75-82).
            allowed, why = True, "TcpDctcp sends retransmissions ECN-capable, tcp-socket-base.cc:81"
        value = tcp[field]
        if value != allowed:
            name = _TCP_KEYS.get(field, field)
            shown = _TCP_VALUES.get(field, _show(allowed))
            raise ScenarioError(f"{key}.tcp.{name}: {_show(value)} cannot run on ns-3 ({why}); set it to {shown}")
    if tcp["recovery"] == "reno":
        raise ScenarioError(f"{key}.tcp.recovery: \"reno\" cannot run on ns-3 (without SACK TcpSocketBase recovers "
                            "as NewReno, RFC 6582); set it to \"newreno\" or \"sack\"")
    expected_header = 52 if tcp["timestamps"] else 40
    if tcp["header_bytes"] != expected_header:
        raise ScenarioError(f"{key}.tcp.header: {tcp['header_bytes']}B is not what ns-3 sends (IPv4 20 B + TCP 20 B"
                            f"{' + timestamps 12 B' if tcp['timestamps'] else ''}); set it to {expected_header}B")


def socket_attributes(tcp: dict[str, Any]) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str]:
    """(sender socket attributes, receiver socket attributes, recovery TypeId) for a flow's
    [tcp] options (ns-3.44 tcp-socket.cc:46-119, tcp-socket-base.cc:97-196)."""
    common = [
        ("SegmentSize", str(tcp["mss"])),
        ("Sack", _ns3_bool(tcp["recovery"] == "sack")),
        ("Timestamp", _ns3_bool(tcp["timestamps"])),
        ("UseEcn", "On" if tcp["ecn"] else "Off"),
        ("RcvBufSize", str(tcp["receive_window"])),
    ]
    unbounded = tcp["initial_ssthresh_segments"] is None
    sender = common + [
        ("InitialCwnd", str(tcp["initial_window_segments"])),
        ("InitialSlowStartThreshold", str(4294967295 if unbounded else tcp["initial_ssthresh_segments"] * tcp["mss"])),
        ("MinRto", f"{tcp['min_rto']}ns"),
        ("ConnTimeout", f"{tcp['initial_rto']}ns"),
        ("ClockGranularity", f"{tcp['clock_granularity']}ns"),
        ("ReTxThreshold", str(tcp["duplicate_threshold"])),
        ("LimitedTransmit", _ns3_bool(tcp["limited_transmit"])),
        ("DataRetries", str(DATA_RETRIES)),
        # The send buffer holds unacknowledged and unsent data, so it caps what is outstanding:
        # `send_buffer`, or, when unbounded, large enough that only the windows limit.
        ("SndBufSize", str(tcp["send_buffer"] or 2 * tcp["receive_window"] + (1 << 18))),
    ]
    receiver = common + [
        ("DelAckCount", str(tcp["delayed_ack_count"] if tcp["delayed_ack"] else 1)),
        ("DelAckTimeout", f"{tcp['delayed_ack_timeout']}ns"),
    ]
    recovery = "ns3::TcpPrrRecovery" if tcp["prr"] else "ns3::TcpClassicRecovery"
    return sender, receiver, recovery


QUEUE_KINDS = ("droptail", "red", "codel", "fq_codel", "pie", "step")


def check_scenario(scenario: dict[str, Any]) -> None:
    """Refuses, by key, what the ns-3 back-end cannot express. ``scenario`` is resolved."""
    check_single_path(scenario, "ns-3")
    for key, link, _ in check_links(scenario, "ns-3", QUEUE_KINDS, "to RateErrorModel per packet",
                                    features=("delay_schedule", "jitter")):
        for direction_key, direction in [(key, link)] + [(f"{key}.{d}", link[d]) for d in ("forward", "reverse")
                                                         if d in link]:
            distribution = (direction.get("jitter") or {}).get("distribution")
            if distribution not in (None, "drift"):
                raise ScenarioError(f"{direction_key}.jitter: the ns-3 back-end cannot express {distribution} jitter "
                                    "(its channel draws only a drifting delay, which never reorders); use "
                                    "distribution = \"drift\" or remove the key to run on ns-3")
        if link.get("rdc_stamp"):
            raise ScenarioError(f"{key}.rdc_stamp: exact receiver-based delay control runs on the simulator only; "
                                "remove the key")
    for index, flow in enumerate(scenario["flows"]):
        if flow.get("protocol", "tcp") == "tcp" and flow.get("on_time") is not None \
                and flow.get("off_unsent", "discard") != "keep":
            raise ScenarioError(f"flows.{index}.off_unsent: \"discard\" cannot run on ns-3 (a socket cannot withdraw "
                                "data written to it); set it to \"keep\", as ns-3's OnOffApplication does")


def check_channels(network: dict[str, Any]) -> None:
    """A queue's settings must be ones the back-end maps."""
    channels = network["channels"]
    for forward, reverse in zip(channels[0::2], channels[1::2]):
        # `_core.network` lists each link's two directions one after the other.
        assert forward["link"] == reverse["link"] and forward["from"] == reverse["to"], (forward, reverse)
    for channel in channels:
        queue = channel["queue"]
        parameters = queue["parameters"]
        where = f"topology: link '{channel['link']}' ({channel['direction']}) queue"
        if queue["kind"] == "step":
            in_packets = "threshold_packets" in parameters
            if in_packets != (queue["limit_packets"] is not None):
                raise ScenarioError(f"{where}.threshold: a step queue runs on ns-3 as RedQueueDisc, which counts its "
                                    "thresholds in the unit of its limit: give threshold and buffer both in packets "
                                    "(e.g. \"65p\") or both in bytes or BDP")
        if queue["kind"] == "red":
            if not parameters["idle_decay"]:
                raise ScenarioError(f"{where}.idle_decay: false cannot run on ns-3 (its RED always decays the "
                                    "average over idle time); remove the key")
            if parameters["mark_p"] != 1.0:
                raise ScenarioError(f"{where}.mark_p: {parameters['mark_p']:g} cannot run on ns-3 (its RED marks "
                                    "every ECN-capable packet it would drop early); set it to 1")
            if not parameters["byte_mode"] and queue["limit_packets"] is None:
                raise ScenarioError(f"{where}: RED counting packets needs a buffer in packets on ns-3 (its RED "
                                    "counts in the unit of its limit); set buffer in packets, e.g. \"100p\", "
                                    "or byte_mode = true")
