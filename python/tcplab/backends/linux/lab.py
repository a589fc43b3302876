"""The hosts of a Linux back-end run: one network namespace per host, named
``tcplab-<run id>-<node>``, holding the host's TUN device (created by the link emulator) and, later,
its endpoint process. Everything a run creates carries the run id; ``remove`` takes it all away,
and without a run id (``tcplab lab cleanup``) what killed runs left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass

NAMESPACE_PREFIX = "tcplab-"
# Every host reaches the others through its TUN device; the emulator routes inside 10.128.0.0/9.
HOSTS_PREFIX = "10.128.0.0/9"


class LabError(RuntimeError):
    """A host could not be set up; the message names the command and the kernel's answer."""


def _run(command: list[str], stdin: str | None = None) -> str:
    done = subprocess.run(command, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise LabError(f"{' '.join(command[:6])}{' ...' if len(command) > 6 else ''}: {done.stderr.strip()}")
    return done.stdout


@dataclass(frozen=True)
class Host:
    node: str
    device: str
    address: str
    namespace: str


def namespace_name(run_id: str, node: str) -> str:
    return f"{NAMESPACE_PREFIX}{run_id}-{node}"


def set_up_host(host: Host, mtu: int, sysctls: dict[str, str]) -> None:
    """The namespace with the host's TUN device moved in, addressed and up, IPv6 off (no router
    solicitations on the links), and the given sysctls."""
    _run(["ip", "netns", "add", host.namespace])
    settings = {"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1", **sysctls}
    _run(["ip", "netns", "exec", host.namespace, "sysctl", "-q", "-w", *(f"{k}={v}" for k, v in settings.items())])
    _run(["ip", "link", "set", "dev", host.device, "netns", host.namespace])
    commands = [
        "link set lo up",
        f"address add {host.address}/32 dev {host.device}",
        f"link set dev {host.device} mtu {mtu} up",
        f"route add {HOSTS_PREFIX} dev {host.device}",
    ]
    _run(["ip", "-n", host.namespace, "-batch", "-"], stdin="\n".join(commands) + "\n")


def processes_in(namespace: str) -> list[int]:
    done = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True)
    return [int(pid) for pid in done.stdout.split()] if done.returncode == 0 else []


def remove_namespace(namespace: str) -> None:
    """Kills what runs in the namespace, destroys the TCP sockets left (the orphans of killed
    processes, which would retransmit for minutes and keep their congestion control in use), then
    deletes it (a namespace with processes in it would outlive its name)."""
    for _ in range(50):
        pids = processes_in(namespace)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.02)
    subprocess.run(["ip", "netns", "exec", namespace, "ss", "--kill", "--tcp", "--all"], capture_output=True)
    subprocess.run(["ip", "netns", "delete", namespace], capture_output=True)


def namespaces(run_id: str | None = None) -> list[str]:
    """tcplab's namespaces: of one run, or of every run."""
    done = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    names = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    prefix = NAMESPACE_PREFIX + (f"{run_id}-" if run_id else "")
    return [name for name in names if name.startswith(prefix)]


def remove(run_id: str | None = None) -> list[str]:
    """Removes one run's namespaces, or (``tcplab lab cleanup``) every tcplab namespace, with
    what runs in them; returns their names."""
    removed = namespaces(run_id)
    for namespace in removed:
        remove_namespace(namespace)
    return removed


def tun_devices(prefix: str) -> list[str]:
    """TUN devices in this namespace whose names start with ``prefix`` (a killed run's devices
    vanish with its process; one still running holds them)."""
    done = subprocess.run(["ip", "-o", "link", "show", "type", "tun"], capture_output=True, text=True)
    names = [line.split(":")[1].strip().split("@")[0] for line in done.stdout.splitlines() if ":" in line]
    return [name for name in names if name.startswith(prefix)]


def add_route(host: Host, destination: str, attributes: list[str]) -> None:
    """A host route with attributes (``initcwnd 10``, ``rto_min 200ms``, ``quickack 1``)."""
    device = host.device
    _run(["ip", "-n", host.namespace, "route", "add", f"{destination}/32", "dev", device, *attributes])
