"""The ns-3 engine program: the sources in engine/ compiled once against the ns3 wheel's headers
and libraries (PyPI `ns3`, 3.44.post0) and kept in a cache directory, rebuilt when the wheel or a
source changes."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

WHEEL = "ns3"
WHEEL_VERSION = "3.44.post0"
INSTALL_HINT = (f"install the ns-3 wheel with 'python3 -m pip install {WHEEL}=={WHEEL_VERSION}' "
                "(or 'python3 -m pip install -e .[test]'); it needs Python 3.11 on x86-64 Linux")
# The engine's sources (engine/main.cc describes it), among them the algorithms of the papers
# ns-3 lacks (tcp-rta.cc, tcp-do.cc; each registers its TypeId itself), and the header they share.
ENGINE = Path(__file__).with_name("engine")
SOURCES = tuple(sorted(ENGINE.glob("*.cc")))
HEADERS = tuple(sorted(ENGINE.glob("*.h")))
# The ns-3 modules the engine links (libns3.44-<name>.so) and the definitions the wheel was built
# with (lib64/cmake/ns3/ns3Targets.cmake: INTERFACE_COMPILE_DEFINITIONS).
MODULES = ("core", "network", "internet", "point-to-point", "applications", "traffic-control", "stats",
           "bridge", "mobility")
DEFINITIONS = ("NS3_BUILD_PROFILE_RELEASE", "NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE")


class Ns3Unavailable(RuntimeError):
    """This machine cannot run the ns-3 back-end: the message says what to install."""


def wheel_root() -> Path:
    """The installed wheel's `ns3` folder (include/, lib64/)."""
    try:
        distribution = metadata.distribution(WHEEL)
    except metadata.PackageNotFoundError:
        raise Ns3Unavailable(f"the ns-3 back-end needs the ns-3 wheel: {INSTALL_HINT}") from None
    if distribution.version != WHEEL_VERSION:
        raise Ns3Unavailable(f"the ns-3 back-end is written for ns3 {WHEEL_VERSION}, and {distribution.version} "
                             f"is installed: {INSTALL_HINT}")
    root = Path(distribution.locate_file("ns3"))
    if not (root / "include" / "ns3" / "tcp-socket-base.h").exists():
        raise Ns3Unavailable(f"the ns3 wheel at {root} has no headers: reinstall it ({INSTALL_HINT})")
    return root


def cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tcplab" / "ns3"


def engine_program() -> Path:
    """The compiled engine, built now if the cache has none for this wheel and source."""
    root = wheel_root()
    compiler = shutil.which("g++")
    if compiler is None:
        raise Ns3Unavailable("the ns-3 back-end compiles a small program against the ns-3 wheel and needs a C++20 "
                             "compiler: install g++ (Debian: 'apt-get install g++')")
    sources = b"".join(source.read_bytes() for source in SOURCES + HEADERS)
    key = hashlib.sha256(sources + f"{WHEEL_VERSION} {root}".encode()).hexdigest()[:16]
    program = cache_directory() / f"tcplab-ns3-{key}"
    if program.exists():
        return program
    program.parent.mkdir(parents=True, exist_ok=True)
    library = root / "lib64"
    partial = program.with_suffix(f".{os.getpid()}.partial")
    command = [compiler, "-std=c++20", "-O2", *(f"-D{d}" for d in DEFINITIONS), f"-I{root / 'include'}",
               *(str(source) for source in SOURCES), f"-L{library}", f"-Wl,-rpath,{library}",
               *(f"-lns3.44-{module}" for module in MODULES), "-o", str(partial)]
    built = subprocess.run(command, capture_output=True, text=True)
    if built.returncode != 0:
        raise Ns3Unavailable("compiling the ns-3 engine failed:\n" + "\n".join(built.stderr.splitlines()[-20:]))
    partial.replace(program)
    # Builds for an earlier source or wheel are of no further use.
    for stale in program.parent.glob("tcplab-ns3-*"):
        if stale != program and not stale.name.endswith(".partial"):
            stale.unlink(missing_ok=True)
    return program
