"""The temporary directory a Linux run builds its BPF congestion controls in.

Its name carries the run's process id (``tcplab-bpf-<pid>-...``), so that ``tcplab lab cleanup``
can remove the directories of runs that were killed (SIGKILL skips the run's own removal) and
leave those of runs still going.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "tcplab-bpf-"


def create() -> tempfile.TemporaryDirectory:
    """A new build directory for this process, removed when the context it opens ends."""
    return tempfile.TemporaryDirectory(prefix=f"{PREFIX}{os.getpid()}-")


def _owner_alive(directory: Path) -> bool:
    owner = directory.name[len(PREFIX):].split("-", 1)[0]
    if not owner.isdigit():
        return False  # made before names carried a process id: its run has ended since
    try:
        os.kill(int(owner), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a process of another user holds that id
    return True


def remove_stale() -> list[Path]:
    """Removes the build directories whose run's process is gone; returns them."""
    stale = [d for d in sorted(Path(tempfile.gettempdir()).glob(f"{PREFIX}*")) if d.is_dir() and not _owner_alive(d)]
    for directory in stale:
        shutil.rmtree(directory, ignore_errors=True)
    return stale
