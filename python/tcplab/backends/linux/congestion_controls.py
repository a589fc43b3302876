"""Which kernel congestion control runs each flow of a Linux back-end run: the kernel's own module
where it has one that is the same algorithm (reno, cubic, bbr here), otherwise tcplab's BPF
version (``bpf/<algorithm>.bpf.c``), built and loaded for the run; what can exist in neither form
is refused with the reason. docs/linux-backend.md has the table.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab._core import ScenarioError
from tcplab.backends.linux import bpf_build
from tcplab.python_cc import PREFIX as PYTHON_PREFIX

AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
# tcplab algorithms whose Linux module has the same name and follows the same algorithm (tcplab's
# versions are written after these modules; docs/algorithms). A module the kernel has is used;
# otherwise tcplab's BPF version, if there is one.
KERNEL_MODULES = ("reno", "cubic", "bbr", "bic", "highspeed", "hybla", "scalable", "vegas", "veno", "westwood")
# Algorithms that change what the receiver does (dctcp's CE echo, RFC 8257 section 3.2): the
# receiving socket runs them too.
RECEIVER_ALGORITHMS = ("dctcp",)
# What no kernel congestion control can be, and why.
IMPOSSIBLE = {
    "sdc": "Active Delay Control's sender holds each ACK before TCP processes it, and a kernel congestion "
           "control only sees ACKs after TCP has (tcp_congestion_ops has no hook that delays them)",
}


@dataclass(frozen=True)
class BpfPlan:
    """One BPF algorithm of a run, with the parameters its flows share."""

    algorithm: str
    params: dict[str, Any]
    # The first flow that runs it, for error messages.
    key: str


def kernel_algorithms() -> list[str]:
    return AVAILABLE.read_text().split() if AVAILABLE.exists() else []


def kernel_name(algorithm: str) -> str:
    """The name a socket selects with TCP_CONGESTION for a tcplab algorithm."""
    if algorithm in KERNEL_MODULES and algorithm in kernel_algorithms():
        return algorithm
    return bpf_build.kernel_name(algorithm)


def plan(scenario: dict[str, Any]) -> list[BpfPlan]:
    """The BPF algorithms the scenario's TCP flows need, checked: refuses an algorithm that has
    neither form and one algorithm with two sets of parameters (the kernel holds one instance of
    each); ``prepare`` checks the parameters themselves. ``scenario`` is resolved."""
    available = kernel_algorithms()
    chosen: dict[str, tuple[str, dict[str, Any]]] = {}
    for index, flow in enumerate(scenario["flows"]):
        if flow.get("protocol", "tcp") != "tcp":
            continue
        key, cc = f"flows.{index}", flow.get("cc")
        _refuse_impossible(key, cc)
        if cc in KERNEL_MODULES and cc in available:
            continue
        if cc not in bpf_build.bpf_algorithms():
            raise ScenarioError(f"{key}.cc: '{cc}' has neither a module in this kernel ({', '.join(available)}) "
                                "nor a BPF version in tcplab")
        params = flow.get("params", {})
        if cc in chosen and chosen[cc][1] != params:
            raise ScenarioError(
                f"{key}.params: flows of '{cc}' with different params cannot share a kernel run (the kernel holds one "
                f"instance of {bpf_build.kernel_name(cc)}, set up as {chosen[cc][0]}.params); run them separately")
        chosen.setdefault(cc, (key, params))
    return [BpfPlan(cc, params, key) for cc, (key, params) in chosen.items()]


def _refuse_impossible(key: str, cc: str) -> None:
    if cc in IMPOSSIBLE:
        raise ScenarioError(f"{key}.cc: '{cc}' cannot run on the Linux back-end: {IMPOSSIBLE[cc]}; run it on the simulator")
    if cc.startswith(PYTHON_PREFIX):
        raise ScenarioError(f"{key}.cc: '{cc}' cannot run on the Linux back-end: a Python algorithm runs inside the "
                            "simulator's process, and the kernel runs only compiled congestion controls; run it on "
                            "the simulator")


def check_built_in_params(scenario: dict[str, Any], as_written: dict[str, Any]) -> None:
    """A kernel module takes no per-connection parameters: a flow of one that sets params is
    refused."""
    available = kernel_algorithms()
    for index, flow in enumerate(scenario["flows"]):
        cc = flow.get("cc")
        if cc in KERNEL_MODULES and cc in available and as_written["flows"][index].get("params"):
            raise ScenarioError(
                f"flows.{index}.params: the kernel's {cc} takes no per-connection parameters (its module parameters "
                "apply to every connection); remove params to run it")


def prepare(bpf: BpfPlan, directory: Path) -> Path:
    """Builds the algorithm and writes its parameters into a copy in ``directory``: the object to
    register. A parameter the BPF version does not hold must keep the simulator's default."""
    built = bpf_build.build(bpf.algorithm)
    choices = {param["name"]: param["choices"] for algorithm in _core.algorithms() if algorithm["name"] == bpf.algorithm
               for param in algorithm["params"] if "choices" in param}
    destination = directory / f"{bpf.algorithm}.bpf.o"
    held = bpf_build.with_parameters(built, bpf.params, choices, destination)
    defaults = _defaults(bpf.algorithm)
    for name, value in sorted(bpf.params.items()):
        if name not in held and value != defaults.get(name):
            raise ScenarioError(
                f"{bpf.key}.params.{name}: tcplab's BPF {bpf.algorithm} keeps {name} = {json.dumps(defaults.get(name))} "
                f"(the kernel cannot do otherwise; see docs/algorithms/{bpf.algorithm}.md), not {json.dumps(value)}; "
                "run other values on the simulator")
    return destination


def _defaults(algorithm: str) -> dict[str, Any]:
    """The algorithm's resolved default params, in the form the resolved scenario writes them."""
    minimal = {"simulation": {"duration": "1s"},
               "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
               "flows": [{"cc": algorithm}]}
    return tomllib.loads(_core.validate(json.dumps(minimal)))["flows"][0].get("params", {})
