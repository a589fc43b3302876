"""Options several ``tcplab`` commands share, defined once so they read alike everywhere:
``-s/--set``, ``-t/--duration`` and ``-o/--out`` (short forms as iperf3's ``-t`` and most tools'
``-o``)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ns|us|ms|s|min|h)?\s*$")
_SECONDS_PER_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def add_set(parser: argparse.ArgumentParser, help_text: str = "override a scenario key, e.g. "
            "-s topology.bottleneck.rate=25Mbps (repeatable)") -> None:
    parser.add_argument("-s", "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help=help_text)


def add_duration(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-t", "--duration", metavar="DURATION",
                        help="simulated time, e.g. 30s or 500ms; a bare number is seconds (sets simulation.duration)")


def add_out(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("-o", "--out", type=Path, help=help_text)


def seconds(option: str, text: str, *, bare_is_seconds: bool = False) -> float:
    """A duration with its unit ("500ms", "1s") in seconds; with ``bare_is_seconds``, "30" too."""
    from tcplab.scenario import _error

    match = _DURATION.match(text)
    if not match or (match.group(2) is None and not bare_is_seconds) or float(match.group(1)) <= 0:
        units = "ns, us, ms, s, min or h"
        bare = "; a bare number is seconds" if bare_is_seconds else ""
        raise _error(option, f"'{text}' is not a duration: a positive number with a unit {units} (e.g. 1s){bare}")
    return float(match.group(1)) * _SECONDS_PER_UNIT[match.group(2) or "s"]


def smoothing(text: str | None) -> float | None:
    """``--smooth``: None (not given) keeps the plots' default smoothing, "0" draws goodput as
    sampled, a duration is the trailing mean's length in seconds."""
    if text is None:
        return None
    if re.fullmatch(r"\s*0+(\.0*)?\s*(ns|us|ms|s|min|h)?\s*", text):
        return 0.0
    return seconds("--smooth", text)


def add_links(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    parser.add_argument("--links", metavar="NAME,NAME", help=f"{prefix}the links whose queues and capacities the figures "
                        "draw, by name as in the links table (default: every congested link)")


def links(text: str | None, table: Any) -> list[str] | None:
    """``--links``: the link names, each checked against the run's (or sweep's) links table, so a
    misspelt name is an error naming the option and the links there are."""
    if text is None:
        return None
    from tcplab.scenario import _error

    names = [name.strip() for name in text.split(",") if name.strip()]
    known = list(dict.fromkeys(table["link"]))
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        what = f"no link named {', '.join(repr(n) for n in unknown)}" if unknown else f"'{text}' names no link"
        raise _error("--links", f"{what}; the links are {', '.join(known)}")
    return names


def duration_override(args: argparse.Namespace) -> dict[str, Any]:
    """``{"simulation.duration": ...}`` from ``-t/--duration``, checked here so an error names the option."""
    text = getattr(args, "duration", None)
    if text is None:
        return {}
    seconds("--duration", text, bare_is_seconds=True)
    match = _DURATION.match(text)
    return {"simulation.duration": f"{match.group(1)}{match.group(2) or 's'}"}
