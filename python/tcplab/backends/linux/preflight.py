"""What the Linux back-end checks before it creates anything: root, the kernel features it needs,
a topology and flows it can run, and for every flow's algorithm a kernel module or tcplab's BPF
version with the tools that build it (congestion_controls.py). Each refusal
names what is missing or the scenario key, its value and what is allowed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from tcplab._core import ScenarioError
from tcplab.backends.linux import bpf_build, congestion_controls

SUPPORTED_TOPOLOGIES = ("dumbbell", "chain")


class BackendUnavailable(RuntimeError):
    """This machine cannot run the Linux back-end: the message says what is missing."""


def check_machine() -> None:
    missing = []
    if os.geteuid() != 0:
        missing.append("root (network namespaces and TUN devices need CAP_NET_ADMIN): run with sudo")
    if not Path("/dev/net/tun").exists():
        missing.append("/dev/net/tun (the kernel's TUN driver)")
    if not Path("/proc/self/ns/net").exists():
        missing.append("network namespaces (CONFIG_NET_NS)")
    for tool in ("ip", "sysctl"):
        if shutil.which(tool) is None:
            missing.append(f"the '{tool}' command (Debian packages iproute2 and procps)")
    if missing:
        raise BackendUnavailable("the Linux back-end needs " + "; ".join(missing))


def check_scenario(scenario: dict[str, Any], as_written: dict[str, Any]) -> None:
    """Refuses what the Linux back-end cannot run as the simulator would. ``scenario`` is
    resolved (defaults filled in), ``as_written`` the user's (for keys whose defaults the
    resolution writes out, such as an algorithm's parameters)."""
    kind = scenario["topology"]["kind"]
    if kind not in SUPPORTED_TOPOLOGIES:
        raise ScenarioError(
            f"topology.kind: the Linux back-end runs {' and '.join(SUPPORTED_TOPOLOGIES)} topologies, not '{kind}' "
            "(every flow needs hosts of its own, which only these give)"
        )
    if scenario["simulation"].get("capture"):
        raise ScenarioError("simulation.capture: the Linux back-end writes no captures; remove the key "
                            "(or capture on a host's TUN device with tcpdump)")
    for index, flow in enumerate(scenario["flows"]):
        if flow.get("restart"):
            raise ScenarioError(f"flows.{index}.restart: restarting transfers run on the simulator only; remove the key")
    congestion_controls.check_built_in_params(scenario, as_written)
    if congestion_controls.plan(scenario):
        missing = bpf_build.missing_tools()
        if missing:
            raise BackendUnavailable("tcplab's BPF congestion controls need " + "; ".join(missing))
