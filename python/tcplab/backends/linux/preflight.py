"""What the Linux back-end checks before it creates anything: root, the kernel features it needs,
a topology and flows it can run, and a kernel module for every flow's algorithm. Each refusal
names what is missing or the scenario key, its value and what is allowed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from tcplab._core import ScenarioError

# tcplab algorithms whose Linux module has the same name and follows the same algorithm (tcplab's
# versions are written after these modules; docs/algorithms). The others (newreno as ns-2 has it,
# compound, roccet, rta, tcp_do, sdc, ...) have no module in mainline Linux.
KERNEL_MODULES = ("reno", "cubic", "bbr", "bic", "highspeed", "hybla", "scalable", "vegas", "veno", "westwood")
# Algorithms whose Linux module changes what the receiver does (dctcp echoes CE its own way): the
# back-end would have to set them on the receiving socket as well.
RECEIVER_ALGORITHMS = ("dctcp",)
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
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


def kernel_algorithms() -> list[str]:
    return AVAILABLE.read_text().split() if AVAILABLE.exists() else []


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
    available = kernel_algorithms()
    for index, flow in enumerate(scenario["flows"]):
        key = f"flows.{index}"
        if flow.get("restart"):
            raise ScenarioError(f"{key}.restart: restarting transfers run on the simulator only; remove the key")
        if flow.get("protocol", "tcp") != "tcp":
            continue
        cc = flow.get("cc")
        if cc in RECEIVER_ALGORITHMS:
            raise ScenarioError(
                f"{key}.cc: '{cc}' does not run on the Linux back-end yet: the kernel's {cc} needs the receiving "
                f"socket to run {cc} too (its CE echo, net/ipv4/tcp_dctcp.h), and the back-end's receivers keep "
                "the host default; run it on the simulator or the ns-3 back-end"
            )
        if cc not in KERNEL_MODULES or cc not in available:
            raise ScenarioError(
                f"{key}.cc: '{cc}' has no congestion control module in this kernel; it has: {', '.join(available)}"
                + (f" (tcplab's '{cc}' follows no Linux module of that name)" if cc not in KERNEL_MODULES else "")
            )
        if as_written["flows"][index].get("params"):
            raise ScenarioError(
                f"{key}.params: the kernel's {cc} takes no per-connection parameters (its module parameters "
                "apply to every connection); remove params to run it"
            )
