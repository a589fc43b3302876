"""What the ns-2 back-end checks before it writes a script: the `ns` binary, and a scenario whose
every key ns-2.35 can express as the simulator runs it. Each refusal names the key, its value and
what ns-2 allows. It also decides which ns-2 agent runs each flow (docs/ns2-backend.md):

- tcplab's `newreno` (RFC 5681 growth per ACK, as ns-2's one-way agents grow) runs on the one-way
  agent of the flow's recovery: `Agent/TCP/Reno`, `Agent/TCP/Newreno` or `Agent/TCP/Sack1`.
- Algorithms tcplab writes after a Linux module run on `Agent/TCP/Linux` with that module
  (`select_ca`), which always recovers with SACK: they need `tcp.recovery = "sack"`.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any

from tcplab._core import ScenarioError
from tcplab.backends.preflight_common import check_links, check_single_path, links
from tcplab.backends.preflight_common import show as _show

INSTALL_HINT = "install Debian's ns-2.35 with 'apt-get install ns2' (the test setup does)"

# One-way agents by tcplab recovery mode (ns-2's tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc).
ONE_WAY_AGENTS = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno", "sack": "Agent/TCP/Sack1"}
# tcplab algorithm -> ns-2.35's Linux-agent module (tcp/linux/src, the Linux 2.6.22 modules).
LINUX_MODULES = {
    "reno": "reno", "cubic": "cubic", "bic": "bic", "highspeed": "highspeed", "hybla": "hybla",
    "scalable": "scalable", "vegas": "vegas", "veno": "veno", "westwood": "westwood", "compound": "compound",
}


@dataclass(frozen=True)
class ModuleParameter:
    """A tcplab parameter that ns-2's module takes as a module parameter (`set_ca_default_param`)."""

    module_name: str
    # tcplab's value -> the module's integer (e.g. CUBIC's beta 0.7 -> 717, in 1/1024).
    convert: Any


def _per_1024(value: float) -> int:
    return round(float(value) * 1024)


def _boolean(value: Any) -> int:
    return 1 if value else 0


def _vegas_shifted(value: Any) -> int:
    # tcp_vegas.c keeps alpha, beta and gamma with V_PARAM_SHIFT (1) fraction bits.
    return int(value) << 1


def _cubic_bic_scale(value: float) -> int:
    # tcp_cubic.c: C = bic_scale x 10 / 1024 (bic_scale 41 is C = 0.4).
    return round(float(value) * 1024 / 10)


_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1000.0, "min": 60000.0}


def _milliseconds(value: str) -> int:
    # A resolved duration: a number and one of the scenario's units ("25ms").
    number = str(value).rstrip("abcdefghijklmnopqrstuvwxyz")
    return round(float(number) * _UNIT_MS[str(value)[len(number):]])


# Parameters the modules expose (each checked with get_ca_default_param on ns-2.35).
MODULE_PARAMETERS: dict[str, dict[str, ModuleParameter]] = {
    "cubic": {
        "beta": ModuleParameter("beta", _per_1024),
        "c": ModuleParameter("bic_scale", _cubic_bic_scale),
        "fast_convergence": ModuleParameter("fast_convergence", _boolean),
        "tcp_friendliness": ModuleParameter("tcp_friendliness", _boolean),
    },
    "bic": {
        "beta": ModuleParameter("beta", _per_1024),
        "max_increment": ModuleParameter("max_increment", int),
        "low_window": ModuleParameter("low_window", int),
        "smooth_part": ModuleParameter("smooth_part", int),
        "fast_convergence": ModuleParameter("fast_convergence", _boolean),
    },
    "vegas": {
        "alpha": ModuleParameter("alpha", _vegas_shifted),
        "beta": ModuleParameter("beta", _vegas_shifted),
        "gamma": ModuleParameter("gamma", _vegas_shifted),
    },
    "hybla": {"rtt0": ModuleParameter("rtt0", _milliseconds)},
}

# Parameters that are constants in ns-2.35's module: the value it has, and where. A scenario must
# give tcplab the same value, or the two engines would run different algorithms.
# 2.6.22's tcp_cubic.c and tcp_bic.c divide cnt by their estimate of segments per ACK
# (delayed_ack, scaled by 16), which the agent's ACKs leave at 31/16 (docs/algorithms/cubic.md).
NS2_ACK_ESTIMATE = 1.9375
# The parameter sets that make tcplab's algorithms the Linux 2.6.22 modules ns-2.35's Linux agent
# carries (docs/algorithms/cubic.md and bic.md; the ACK-count estimate is 31/16 with the agent's
# one ACK per segment; beta 819/1024 in those modules).
LINUX_AGENT_PARAMS: dict[str, dict[str, Any]] = {
    "cubic": {"beta": 0.7998046875, "hystart": False, "cnt_before_loss": 50, "cnt_before_loss_rule": "exactly",
              "min_cnt": 1, "max_increment": 0, "rtt_lookahead": False, "cnt_divisor": NS2_ACK_ESTIMATE},
    "bic": {"beta": 0.7998046875, "cnt_divisor": NS2_ACK_ESTIMATE},
    "compound": {},
    "vegas": {},
    "veno": {},
}
MODULE_CONSTANTS: dict[str, dict[str, tuple[Any, str]]] = {
    "cubic": {
        "hystart": (False, "the 2.6.22 module has no HyStart"),
        "cnt_before_loss": (50, "CUBIC 2.1 sets cnt = 50 while no loss has happened"),
        "cnt_before_loss_rule": ("exactly", "CUBIC 2.1 sets cnt to 50, not at most 20"),
        "min_cnt": (1, "CUBIC 2.1's smallest cnt"),
        # Without timestamps_ the module gets no delay sample, so delay_min stays 0 and neither
        # max_increment (Smax) nor the RTT look-ahead acts.
        "max_increment": (0, "without timestamps_ the 2.1 module measures no delay, so Smax never acts"),
        "rtt_lookahead": (False, "without timestamps_ the 2.1 module measures no delay"),
    },
    "bic": {"b": (4, "BICTCP_B in tcp_bic.c")},
    "veno": {"beta": (3, "V_BETA's 3 segments in tcp_veno.c")},
    "vegas": {"freeze_when_not_cwnd_limited": (True, "tcp_vegas.c's Reno fallback, tcp_reno_cong_avoid in tcp_cong.c, "
                                                     "returns unless tcp_is_cwnd_limited")},
    "highspeed": {
        "low_window": (38, "the first row of hstcp_aimd_vals in tcp_highspeed.c"),
        "high_window": (83000, "the last row of hstcp_aimd_vals"),
        "high_decrease": (0.1, "the last row of hstcp_aimd_vals (0.1 x 256 / 256)"),
    },
    "scalable": {
        "ai_count": (50, "TCP_SCALABLE_AI_CNT in the 2.6.22 tcp_scalable.c (later kernels use 100)"),
        "md_shift": (3, "TCP_SCALABLE_MD_SCALE in tcp_scalable.c"),
    },
    "westwood": {"min_sample_window": ("50ms", "TCP_WESTWOOD_RTT_MIN (HZ / 20) in tcp_westwood.c")},
    "compound": {
        "alpha": (0.125, "TCP_COMPOUND_ALPHA: a right shift by 3 in tcp_compound.c"),
        "beta": (0.5, "TCP_COMPOUND_BETA with V_PARAM_SHIFT 1 in tcp_compound.c"),
        "k": (0.75, "the quartic root in tcp_compound.c"),
        "gamma": (30.0, "TCP_COMPOUND_GAMMA in tcp_compound.c"),
        "low_window_rule": (False, "tcp_compound.c has no low-window rule"),
        "gamma_auto_tuning": (False, "tcp_compound.c has a fixed gamma"),
        "freeze_when_not_cwnd_limited": (True, "tcp_compound_cong_avoid returns unless tcp_is_cwnd_limited"),
    },
}


class Ns2Unavailable(RuntimeError):
    """This machine cannot run the ns-2 back-end: the message says what to install."""


def find_ns() -> str:
    path = shutil.which("ns")
    if path is None:
        raise Ns2Unavailable(f"the ns-2 back-end needs the 'ns' program: {INSTALL_HINT}")
    return path


def agent_for(cc: str, tcp: dict[str, Any], key: str) -> tuple[str, str | None]:
    """(ns-2 agent class, Linux module or None) for a TCP flow, or a refusal naming the key."""
    recovery = tcp["recovery"]
    if cc == "newreno":
        return ONE_WAY_AGENTS[recovery], None
    if cc in LINUX_MODULES:
        if recovery != "sack":
            raise ScenarioError(
                f"{key}.tcp.recovery: '{recovery}' with cc '{cc}': ns-2 runs {cc} only in its Linux agent "
                "(Agent/TCP/Linux), which recovers with SACK; set tcp.recovery = \"sack\" (or use cc = \"newreno\" "
                "for ns-2's one-way Reno/Newreno agents)"
            )
        return "Agent/TCP/Linux", LINUX_MODULES[cc]
    runs = ", ".join(["newreno"] + sorted(LINUX_MODULES))
    raise ScenarioError(f"{key}.cc: '{cc}' has no counterpart in ns-2.35; the ns-2 back-end runs {runs}")


# TCP options ns-2's agents cannot have, with the value that they do have.
_TCP_FIXED = {
    "tail_loss_probe": (False, "ns-2's agents send no tail loss probes"),
    "prr": (False, "ns-2's agents have no proportional rate reduction"),
    "frto": (False, "ns-2's agents have no F-RTO"),
    "undo": (False, "ns-2's agents never undo a reduction"),
    "pacing": (False, "ns-2's agents do not pace"),
    "gso": (False, "ns-2's agents send one packet at a time"),
    "quick_ack_segments": (0, "ns-2's sinks have no quick-ACK mode"),
    "ack_policy": ("counted", "ns-2's sinks ACK every packet, or every second one with DelAck"),
    "ack_delay": ("none", "receiver-side delay control runs on the simulator only"),
    "ecn_response": ("rfc3168", "ns-2 answers ECN as RFC 3168 section 6.1.2: below one packet, then the timer"),
    "ect_retransmissions": (True, "ns-2 sends every data packet of an ECN agent ECN-capable, tcp.cc output()"),
}
# Checked only with tcp.ecn on.
_ECN_ONLY = ("ecn_response", "ect_retransmissions")
# The scenario's own key for each TcpConfig field whose name differs.
_TCP_KEYS = {"quick_ack_segments": "quick_acks"}


# The one-way agents (tcp.cc) and the Linux agent (tcp/linux/tcp-linux.cc) differ in these.
_ONE_WAY_FIXED = {
    "rack": (False, "ns-2's one-way agents have no RACK"),
    "rto_restart": ("new_data", "ns-2's one-way agents restart the timer on new data (tcp.cc newack)"),
}
_LINUX_AGENT_FIXED = {
    # The agent's scoreboard marks a retransmission lost again once a later segment is SACKed
    # (tcp/scoreboard1.cc UpdateScoreBoard): RACK is tcplab's way to the same.
    "rack": (True, "its scoreboard finds lost retransmissions, as RACK does (scoreboard1.cc)"),
    "rto_restart": ("every_ack", "it renews the timer on every ACK (tcp-linux.cc time_processing)"),
    "rtt_sampling": ("timed_segment", "the back-end runs it as ns-default.tcl has it, without timestamps_"),
}


def check_tcp(tcp: dict[str, Any], key: str, linux_agent: bool) -> None:
    agent = "ns-2's Linux agent" if linux_agent else "ns-2's one-way agents"
    for field, (allowed, why) in (_LINUX_AGENT_FIXED if linux_agent else _ONE_WAY_FIXED).items():
        if tcp[field] != allowed:
            raise ScenarioError(f"{key}.tcp.{field}: {_show(tcp[field])} cannot run on {agent} ({why}); "
                                f"set it to {_show(allowed)}")
    if linux_agent:
        _check_linux_agent_window(tcp, key)
    for field, (allowed, why) in _TCP_FIXED.items():
        if field in _ECN_ONLY and not tcp["ecn"]:
            continue
        value = tcp[field]
        if value != allowed:
            name = _TCP_KEYS.get(field, field)
            raise ScenarioError(f"{key}.tcp.{name}: {_show(value)} cannot run on ns-2 ({why}); set it to {_show(allowed)}")
    if tcp["rto_formula"] != "ns2":
        raise ScenarioError(f"{key}.tcp.rto_formula: {_show(tcp['rto_formula'])} cannot run on ns-2 (its agents keep "
                            "their own estimator in tcpTick_ ticks, tcp.cc rtt_update); set it to \"ns2\"")
    if tcp["delayed_ack"] and tcp["delayed_ack_count"] != 2:
        raise ScenarioError(f"{key}.tcp.delayed_ack_count: {tcp['delayed_ack_count']} cannot run on ns-2 "
                            "(its DelAck sink acknowledges every second segment); set it to 2")
    if not linux_agent and tcp["receive_window"] % tcp["mss"]:
        raise ScenarioError(f"{key}.tcp.receive_window: {tcp['receive_window']}B is not a whole number of "
                            f"{tcp['mss']}B segments (ns-2's window_ counts packets)")


def _check_linux_agent_window(tcp: dict[str, Any], key: str) -> None:
    """ns-2's Linux agent turns window_ into the cwnd clamp and its first ssthresh
    (tcp-linux.cc load_to_linux_once) and has no receive window: limits only packets in flight."""
    clamp = tcp["cwnd_clamp_segments"]
    if clamp is None:
        raise ScenarioError(f"{key}.tcp.cwnd_clamp: unset cannot run on ns-2's Linux agent, which clamps cwnd at "
                            "its window_ (tcp-linux.cc load_to_linux_once): set it (the study's window_, e.g. 1000)")
    if tcp["initial_ssthresh_segments"] != clamp:
        raise ScenarioError(f"{key}.tcp.initial_ssthresh: {tcp['initial_ssthresh_segments']} cannot run on ns-2's Linux "
                            f"agent, whose first ssthresh is its window_, the cwnd_clamp {clamp}; set it to {clamp}")
    # SACK recovery can keep up to about twice cwnd between the cumulative ACK and the highest
    # segment sent; the agent has no receive window, so tcplab's must not bind before that.
    if tcp["receive_window"] < 2 * clamp * tcp["mss"]:
        raise ScenarioError(f"{key}.tcp.receive_window: {tcp['receive_window']}B would limit the sender, and ns-2's "
                            f"Linux agent has no receive window; set it to at least {2 * clamp * tcp['mss']}B "
                            "(twice cwnd_clamp's bytes)")


def check_params(cc: str, module: str | None, params: dict[str, Any], key: str) -> dict[str, int]:
    """The module parameters to set for a Linux-agent flow; refuses a parameter ns-2 cannot take
    or a value that differs from a constant of ns-2's module."""
    if module is None:
        # ns-2's one-way agents: opencwnd() grows one segment per ACK whether cwnd-limited or not,
        # slowdown() keeps ssthresh in whole packets and halves cwnd itself on ECN (tcp.cc).
        allowed = {"abc_limit": 1, "freeze_when_not_cwnd_limited": False, "reduction": "ns2_slowdown"}
        for name, required in allowed.items():
            value = params.get(name, required if name != "reduction" else "rfc5681")
            if value != required:
                raise ScenarioError(
                    f"{key}.params.{name}: {_show(value)} cannot run on ns-2 (its one-way agents grow by one "
                    "segment per ACK whether cwnd-limited or not, and reduce with slowdown()'s arithmetic); "
                    f"set it to {_show(required)}")
        return {}
    if params.get("cnt_divisor") not in (None, NS2_ACK_ESTIMATE) and cc in ("cubic", "bic"):
        raise ScenarioError(f"{key}.params.cnt_divisor: {_show(params['cnt_divisor'])} cannot run on ns-2, whose "
                            f"Linux agent's ACK-count estimate stays at {NS2_ACK_ESTIMATE} with one ACK per segment "
                            f"(docs/ns2-backend.md); set it to {NS2_ACK_ESTIMATE}")
    settable = MODULE_PARAMETERS.get(cc, {})
    constants = MODULE_CONSTANTS.get(cc, {})
    module_values = {}
    for name, value in params.items():
        if name in settable:
            module_values[settable[name].module_name] = settable[name].convert(value)
        elif name in constants and value != constants[name][0]:
            fixed, where = constants[name]
            raise ScenarioError(f"{key}.params.{name}: {_show(value)} cannot run on ns-2, whose {cc} has "
                                f"{_show(fixed)} ({where}); set it to {_show(fixed)}")
    return module_values


def check_scenario(scenario: dict[str, Any]) -> None:
    """Refuses, by key, what ns-2 cannot express. ``scenario`` is resolved (defaults filled)."""
    check_single_path(scenario, "ns-2")
    for key, link in links(scenario):
        queue = link.get("queue") or {}
        if (queue.get("kind") if isinstance(queue, dict) else queue) == "step":
            raise ScenarioError(f"{key}.queue.kind: 'step' cannot run on ns-2 (ns-2.35 has DropTail and RED, and "
                                "its RED does not make a step: in the gentle region it drops ECN-capable packets "
                                "instead of marking them); use \"droptail\" or \"red\"")
    for key, link, queue in check_links(scenario, "ns-2", ("droptail", "red"), "to ns-2's ErrorModel",
                                        " (ns-2.35 has DropTail and RED)"):
        if isinstance(queue, dict):
            if queue.get("idle_decay") is False:
                raise ScenarioError(f"{key}.queue.idle_decay: false cannot run on ns-2 (its RED always decays "
                                    "the average over idle time); remove the key")
        if link.get("rdc_stamp"):
            raise ScenarioError(f"{key}.rdc_stamp: exact receiver-based delay control runs on the simulator only; "
                                "remove the key")
    for index, flow in enumerate(scenario["flows"]):
        for key in ("on", "off", "rate"):
            if flow.get("protocol", "tcp") == "tcp" and flow.get(key) is not None:
                raise ScenarioError(f"flows.{index}.{key}: the ns-2 back-end runs bulk and finite TCP transfers "
                                    "only (FTP); remove the key")
        if flow.get("protocol") == "udp" and flow.get("on") is not None:
            raise ScenarioError(f"flows.{index}.on: the ns-2 back-end runs constant-bit-rate UDP only; remove the key")
