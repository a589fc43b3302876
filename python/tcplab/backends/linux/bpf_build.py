"""Builds tcplab's BPF congestion controls (``bpf/<algorithm>.bpf.c``) for the running kernel and
writes a flow's parameters into the object before it is loaded.

- ``vmlinux.h`` (every kernel type, as C) is generated from the kernel's BTF
  (/sys/kernel/btf/vmlinux) with bpftool, once per kernel: cached under the user's cache
  directory by the BTF's hash.
- An object is compiled with clang once per source, header, kernel and compiler: cached by the
  hash of all four. A compiler error names the algorithm and shows clang's last lines.
- Parameters are the ``param_<name>[_<unit>]`` globals of the object's ``.rodata`` (see
  ``bpf/tcplab_cc.h``): their bytes are overwritten in a copy of the object, at the offsets its
  symbol table gives, before ``bpf_load`` registers it. The values are the flow's resolved
  params, so the simulator's defaults are the kernel's too.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

SOURCES = Path(__file__).with_name("bpf")
HEADER = SOURCES / "tcplab_cc.h"
KERNEL_BTF = Path("/sys/kernel/btf/vmlinux")
# The kernel limits a congestion control's name to 15 characters (TCP_CA_NAME_MAX - 1), and
# "tcplab_" takes 7: algorithms with longer names get a short form.
SHORT_NAMES = {"highspeed": "hspeed"}
# How a parameter's global is named by unit (bpf/tcplab_cc.h), and how a resolved value turns
# into the integer it holds.
UNIT_SUFFIXES = {"_us": "duration_us", "_milli": 1_000, "_micro": 1_000_000}
# Durations as the resolved scenario writes them ("100ms", "1.5s").
_RESOLVED_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s)$")
MICROSECONDS_PER_UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
TOOLS = {"clang": "clang", "bpftool": "bpftool"}
COMPILER_FLAGS = ["-O2", "-g", "-Wall", "-Werror", "-target", "bpf", "-mcpu=v3", "-D__TARGET_ARCH_x86"]


class BpfBuildError(RuntimeError):
    """An algorithm could not be built for this kernel; the message names it and says why."""


def bpf_algorithms() -> list[str]:
    """The algorithms tcplab can load into the kernel: one source file each."""
    return sorted(path.name.removesuffix(".bpf.c") for path in SOURCES.glob("*.bpf.c"))


def kernel_name(algorithm: str) -> str:
    """The name the kernel knows the algorithm by (and its struct_ops map's name)."""
    return "tcplab_" + SHORT_NAMES.get(algorithm, algorithm)


def missing_tools() -> list[str]:
    """What building needs and this machine lacks, as Debian package names to install."""
    missing = [f"{tool} (Debian package {tool})" for tool in TOOLS if shutil.which(tool) is None]
    if not (Path("/usr/include/bpf/bpf_helpers.h")).exists():
        missing.append("libbpf's headers (Debian package libbpf-dev)")
    if not KERNEL_BTF.exists():
        missing.append(f"the kernel's BTF ({KERNEL_BTF}; a kernel built with CONFIG_DEBUG_INFO_BTF)")
    return missing


def _cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = base / "tcplab" / "bpf"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _digest(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(hashlib.sha256(part).digest())
    return hasher.hexdigest()[:16]


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise BpfBuildError(f"{what} failed:\n{tail}")
    return done.stdout


def vmlinux_header() -> Path:
    """The kernel's types as C, generated from its BTF once per kernel."""
    btf = KERNEL_BTF.read_bytes()
    path = _cache_dir() / f"vmlinux-{_digest(btf)}.h"
    if not path.exists():
        text = _run(["bpftool", "btf", "dump", "file", str(KERNEL_BTF), "format", "c"], "bpftool btf dump (vmlinux.h)")
        partial = path.with_suffix(".partial")
        partial.write_text(text)
        partial.replace(path)
    return path


def build(algorithm: str) -> Path:
    """The compiled object of one algorithm, from the cache when nothing changed."""
    source = SOURCES / f"{algorithm}.bpf.c"
    if not source.exists():
        raise BpfBuildError(f"tcplab has no BPF version of '{algorithm}' ({source} does not exist)")
    vmlinux = vmlinux_header()
    compiler = _run(["clang", "--version"], "clang --version").splitlines()[0]
    key = _digest(source.read_bytes(), HEADER.read_bytes(), vmlinux.name.encode(), compiler.encode(),
                  " ".join(COMPILER_FLAGS).encode())
    target = _cache_dir() / f"{algorithm}-{key}.bpf.o"
    if not target.exists():
        include = vmlinux.parent / "include"
        include.mkdir(exist_ok=True)
        link = include / "vmlinux.h"
        if not link.exists() or link.resolve() != vmlinux:
            link.unlink(missing_ok=True)
            link.symlink_to(vmlinux)
        partial = target.with_suffix(".partial")
        _run(["clang", *COMPILER_FLAGS, f"-I{include}", f"-I{SOURCES}", "-c", str(source), "-o", str(partial)],
             f"compiling tcplab's BPF '{algorithm}' ({source.name})")
        partial.replace(target)
    return target


def symbols_in(path: Path, section: str) -> tuple[int, dict[str, tuple[int, int]]]:
    """(the section's file offset, its symbols: name -> (offset in the section, size)); a
    section the object lacks has none."""
    from elftools.elf.elffile import ELFFile

    with path.open("rb") as stream:
        elf = ELFFile(stream)
        index = next((i for i, s in enumerate(elf.iter_sections()) if s.name == section), None)
        if index is None:
            return 0, {}
        symbols = elf.get_section_by_name(".symtab").iter_symbols()
        return elf.get_section(index)["sh_offset"], {
            symbol.name: (symbol["st_value"], symbol["st_size"]) for symbol in symbols if symbol["st_shndx"] == index}


def object_parameters(path: Path) -> dict[str, tuple[int, int]]:
    """The object's parameter globals: symbol name -> (file offset, size in bytes)."""
    file_offset, symbols = symbols_in(path, ".rodata")
    return {name: (file_offset + offset, size) for name, (offset, size) in symbols.items() if name.startswith("param_")}


def events_offset(path: Path) -> int | None:
    """Where the events table (``tcplab_events``) starts in the object's .bss, if it has one."""
    entry = symbols_in(path, ".bss")[1].get("tcplab_events")
    return entry[0] if entry else None


def parameter_for(symbol: str, params: dict[str, Any]) -> tuple[str, Any]:
    """The simulator parameter a global holds and how to convert it: (name, scale), where scale
    is None for integers, booleans and choices."""
    name = symbol.removeprefix("param_")
    if name in params:
        return name, None
    for suffix, scale in UNIT_SUFFIXES.items():
        if name.endswith(suffix) and name.removesuffix(suffix) in params:
            return name.removesuffix(suffix), scale
    raise BpfBuildError(f"the BPF global '{symbol}' names no parameter of the algorithm "
                        f"(it has {', '.join(sorted(params)) or 'none'})")


def encode(value: Any, scale: Any, choices: list[str] | None) -> int:
    """A resolved parameter value as the integer its global holds."""
    if choices is not None:
        return choices.index(value)
    if isinstance(value, bool):
        return int(value)
    if scale == "duration_us":
        number, unit = _RESOLVED_DURATION.match(value).groups()
        return round(float(number) * MICROSECONDS_PER_UNIT[unit])
    if scale is not None:
        return round(float(value) * scale)
    return int(value)


def with_parameters(path: Path, params: dict[str, Any], choices: dict[str, list[str]], destination: Path) -> list[str]:
    """Writes a copy of the object with every parameter global set from ``params`` (the flow's
    resolved params); returns the simulator parameters the object holds."""
    data = bytearray(path.read_bytes())
    held = []
    for symbol, (offset, size) in object_parameters(path).items():
        name, scale = parameter_for(symbol, params)
        value = encode(params[name], scale, choices.get(name))
        if not 0 <= value < 1 << (8 * size):
            raise BpfBuildError(f"params.{name} = {params[name]!r} does not fit the kernel version's "
                                f"{8 * size}-bit unsigned '{symbol}'")
        data[offset:offset + size] = value.to_bytes(size, "little")
        held.append(name)
    destination.write_bytes(bytes(data))
    return held
