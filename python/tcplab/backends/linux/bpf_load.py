"""Puts tcplab's BPF congestion controls into the kernel for a run and takes them out again, with
bpftool: ``register`` (the verifier checks the programs here; the algorithm then appears in
/proc/sys/net/ipv4/tcp_available_congestion_control and sockets select it with TCP_CONGESTION),
``events`` (the algorithm's events table, read before it goes) and ``unregister``.

Every struct_ops map tcplab registers is named ``tcplab_<short name>``; ``remove_all`` (run by
``tcplab lab cleanup``) unregisters every one of them, whatever run left it. A registration
outlives the process that made it, so a run unregisters in ``finally`` (also on SIGINT and
SIGTERM, which the CLI turns into exceptions) and only a SIGKILLed run leaves one behind. One
Linux back-end run at a time: a run that finds its algorithm registered takes the leftover out
first.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tcplab.backends.linux import bpf_build

PREFIX = "tcplab_"
# struct tcplab_event in bpf/tcplab_cc.h: u64 time_ns, u32 port, u32 value, char name[24]; the
# table starts with u32 count and u32 reserved.
EVENT_BYTES = 40
EVENTS_HEADER_BYTES = 8
_PROGRAM_ID = re.compile(r"/prog_id:(\d+)")


class BpfLoadError(RuntimeError):
    """The kernel refused an algorithm (the verifier, a missing BPF feature); the message names
    the algorithm and shows the kernel's last lines."""


@dataclass(frozen=True)
class Loaded:
    algorithm: str
    name: str
    events_offset: int | None


def _bpftool(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bpftool", *arguments], capture_output=True, text=True)


def _json(*arguments: str) -> list | dict:
    done = _bpftool("-j", *arguments)
    if done.returncode != 0:
        raise BpfLoadError(f"bpftool {' '.join(arguments)}: {done.stderr.strip() or done.stdout.strip()}")
    return _values(done.stdout)


def _values(text: str) -> list | dict:
    """bpftool's JSON: one value, or (``struct_ops dump id``) several separated by commas without
    brackets, which come back as a list."""
    try:
        return json.loads(text or "[]")
    except json.JSONDecodeError:
        return json.loads(f"[{text}]")


def registered() -> list[str]:
    """tcplab's congestion controls the kernel has registered now. An unregistered one that a
    socket still uses stays listed by bpftool (state TOBEFREE) until that socket goes, but can
    neither be selected nor unregistered again: it does not count."""
    names = []
    for entry in _json("struct_ops", "show"):
        if entry.get("name", "").startswith(PREFIX) and entry.get("kernel_struct_ops") == "tcp_congestion_ops":
            dump = _json("struct_ops", "dump", "id", str(entry["id"]))
            states = [part["bpf_struct_ops_tcp_congestion_ops"]["common"]["state"] for part in dump
                      if "bpf_struct_ops_tcp_congestion_ops" in part]
            if states and states[0] != "BPF_STRUCT_OPS_STATE_TOBEFREE":
                names.append(entry["name"])
    return sorted(names)


def register(algorithm: str, built: Path) -> Loaded:
    """Registers the object (a leftover of the same name is taken out first)."""
    name = bpf_build.kernel_name(algorithm)
    if name in registered():
        unregister(name)
    done = _bpftool("struct_ops", "register", str(built))
    if done.returncode != 0 or name not in registered():
        log = "\n".join((done.stderr + done.stdout).strip().splitlines()[-15:])
        raise BpfLoadError(f"the kernel refused tcplab's BPF '{algorithm}' ({name}); the verifier's last lines:\n{log}")
    return Loaded(algorithm, name, bpf_build.events_offset(built))


def unregister(name: str) -> None:
    _bpftool("struct_ops", "unregister", "name", name)


def remove_all() -> list[str]:
    """Unregisters every tcplab congestion control; returns their names."""
    names = registered()
    for name in names:
        unregister(name)
    return names


def events(loaded: Loaded) -> list[tuple[int, int, int, str]]:
    """The algorithm's events so far: (CLOCK_MONOTONIC ns, remote port, value, name), in the
    order they were written."""
    if loaded.events_offset is None:
        return []
    table = section_bytes(loaded.name, ".bss")
    if table is None:
        return []
    start = loaded.events_offset
    count = int.from_bytes(table[start:start + 4], "little")
    rows = []
    capacity = (len(table) - start - EVENTS_HEADER_BYTES) // EVENT_BYTES
    for index in range(min(count, capacity)):
        at = start + EVENTS_HEADER_BYTES + index * EVENT_BYTES
        time_ns = int.from_bytes(table[at:at + 8], "little")
        port = int.from_bytes(table[at + 8:at + 12], "little")
        value = int.from_bytes(table[at + 12:at + 16], "little")
        name = table[at + 16:at + EVENT_BYTES].split(b"\0", 1)[0].decode()
        rows.append((time_ns, port, value, name))
    return rows


def section_bytes(name: str, section: str) -> bytes | None:
    """The kernel's copy of a data section (".bss", ".rodata") of a registered algorithm: the
    value of the map its programs use for it."""
    dump = _json("struct_ops", "dump", "name", name)
    operations = next((entry["bpf_struct_ops_tcp_congestion_ops"]["data"] for entry in dump
                       if "bpf_struct_ops_tcp_congestion_ops" in entry), {})
    program_ids = {int(match.group(1)) for value in operations.values() if isinstance(value, str)
                   for match in [_PROGRAM_ID.search(value)] if match}
    for program_id in sorted(program_ids):
        for map_id in _json("prog", "show", "id", str(program_id)).get("map_ids", []):
            info = _json("map", "show", "id", str(map_id))
            if info.get("name", "").endswith(section):
                entries = _json("map", "dump", "id", str(map_id))
                return bytes(int(byte, 16) for byte in entries[0]["value"]) if entries else None
    return None
