"""The files tcplab itself wrote into a results folder, so a new run can remove them first.

A run writes tables, plots and perhaps a report into a folder; a second run into the same folder
may write fewer files (no completion-time plot, no pcap, no ``--csv``), and whatever the first run
left would then describe another experiment. Every writer lists what it wrote in ``.tcplab-files``
inside the folder; a run that starts writing removes the listed files first and starts a new list.
Files tcplab did not write (the user's notes, a scenario kept beside its results) are never
touched.
"""

from __future__ import annotations

from pathlib import Path

LIST_NAME = ".tcplab-files"


def clear(folder: Path) -> None:
    """Removes the files an earlier run listed, and the list itself."""
    listing = folder / LIST_NAME
    if not listing.is_file():
        return
    for name in listing.read_text(encoding="utf-8").splitlines():
        # Only plain names inside the folder: a list edited by hand cannot reach elsewhere.
        if name and Path(name).name == name and name != LIST_NAME:
            (folder / name).unlink(missing_ok=True)
    listing.unlink()


def record(folder: Path, paths: list[Path]) -> None:
    """Adds written files (inside ``folder``) to its list."""
    listing = folder / LIST_NAME
    known = listing.read_text(encoding="utf-8").splitlines() if listing.is_file() else []
    added = [path.name for path in paths if path.parent.resolve() == folder.resolve() and path.name not in known]
    if added:
        listing.write_text("".join(f"{name}\n" for name in known + added), encoding="utf-8")
