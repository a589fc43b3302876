"""Reading scenarios and applying overrides before they go to the simulator.

A scenario is TOML (a file, a TOML string, or an already-parsed dict). Overrides are dotted keys,
with list positions as numbers: ``topology.bottleneck.rate = "25Mbps"``, ``flows.0.cc = "reno"``.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcplab._core import ScenarioError


# A list position right after a name: "flows[4]" (not "(0, 1]" or "[a, b]").
_LIST_POSITION = re.compile(r"(?<=[A-Za-z0-9_])\[(\d+)\]")


class ScenarioWarning(UserWarning):
    """A scenario that is valid but probably not what was meant (a flow starting after the end)."""


def _error(key: str, message: str) -> ScenarioError:
    # As errors raised by the Rust core: str() is "key: message", with .key and .message apart, and
    # list positions written as --set writes them ("flows.4.cc", not "flows[4].cc").
    key, message = _LIST_POSITION.sub(r".\1", key), _LIST_POSITION.sub(r".\1", message)
    error = ScenarioError(f"{key}: {message}" if key else message)
    error.key, error.message = key, message
    return error


# No scenario nests deeper than a few levels (flows.0.tcp.min_rto); far deeper is a mistake, and
# copying or converting it would exhaust Python's recursion limit.
_MAX_DEPTH = 64


def load_scenario(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """Returns the scenario as a dict, from a TOML file path, a TOML string or a mapping."""
    if isinstance(source, Mapping):
        _check_depth(source)
        return copy.deepcopy(dict(source))
    if not isinstance(source, (str, Path)):
        raise _error("scenario", f"expected a TOML file path, TOML text or a dict, not {type(source).__name__}")
    text = str(source)
    path = Path(text)
    # One line without '=' cannot be a TOML scenario: it is a path, existing or not.
    looks_like_path = isinstance(source, Path) or ("\n" not in text and ("=" not in text or path.exists()))
    if looks_like_path:
        text = _read_file(path)
    try:
        scenario = tomllib.loads(text)
        if looks_like_path:
            _resolve_trace_files(scenario, path.parent)
        return scenario
    except tomllib.TOMLDecodeError as exc:
        where = f"'{path}'" if looks_like_path else "the scenario"
        raise _error("", f"{where} is not valid TOML: {exc}{_unquoted_unit_hint(text, exc)}") from None
    except RecursionError:
        raise _error("", "the scenario nests arrays or tables too deeply to be a scenario") from None


# A number followed by letters, unquoted, as the value of a key: `duration = 10s`.
_UNQUOTED_UNIT = re.compile(r"([A-Za-z_][\w.-]*)\s*=\s*(-?\d+(?:\.\d+)?\s*[A-Za-z%/]+)\s*(?:[,}#]|$)")


def _unquoted_unit_hint(text: str, exc: tomllib.TOMLDecodeError) -> str:
    """A hint when the line TOML stopped at has a value with a unit outside quotes."""
    lines = text.splitlines()
    line_number = getattr(exc, "lineno", None)
    if line_number is None:
        found = re.search(r"at line (\d+)", str(exc))
        line_number = int(found.group(1)) if found else None
    if not line_number or line_number > len(lines):
        return ""
    match = _UNQUOTED_UNIT.search(lines[line_number - 1])
    if not match:
        return ""
    key, value = match.group(1), match.group(2).strip()
    return f'; values with units are text in quotes: {key} = "{value}"'


def _resolve_trace_files(scenario: dict[str, Any], directory: Path) -> None:
    """A link direction's `trace.file` given relative to the scenario file becomes absolute, so the
    scenario runs from any working directory (and on sweep workers)."""
    topology = scenario.get("topology")
    if not isinstance(topology, dict):
        return
    links = [topology.get("bottleneck"), topology.get("access")]
    for key in ("hops", "links"):
        if isinstance(topology.get(key), list):
            links += topology[key]
    for link in links:
        for direction in ("forward", "reverse"):
            trace = link.get(direction, {}).get("trace") if isinstance(link, dict) and isinstance(link.get(direction), dict) else None
            if isinstance(trace, dict) and isinstance(trace.get("file"), str) and not Path(trace["file"]).is_absolute():
                trace["file"] = str((directory / trace["file"]).resolve())


def core_links(scenario: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(key, name, table) of each core link of a scenario's topology, named as the links table
    names it: the dumbbell's ``bottleneck``; a chain's hops ``r0-r1`` ... (``topology.hops.0`` ...)
    and a custom topology's ``link0`` ... (``topology.links.0`` ...) unless named. One ``hops``
    table for every hop of a chain is the key ``topology.hops`` for each."""
    topology = scenario.get("topology")
    if not isinstance(topology, Mapping):
        return []
    kind = topology.get("kind")
    if kind == "dumbbell":
        return [("topology.bottleneck", "bottleneck", topology.get("bottleneck") or {})]
    if kind == "chain":
        hops = topology.get("hops", [])
        if isinstance(hops, Mapping):
            return [("topology.hops", hops.get("name") or f"r{i}-r{i + 1}", hops) for i in range(int(topology.get("routers", 2)) - 1)]
        return [(f"topology.hops.{i}", hop.get("name") or f"r{i}-r{i + 1}", hop) for i, hop in enumerate(hops)]
    return [(f"topology.links.{i}", link.get("name") or f"link{i}", link) for i, link in enumerate(topology.get("links", []))]


def links_named_by(scenario: Mapping[str, Any], keys: list[str] | tuple[str, ...]) -> list[str]:
    """The core links whose settings the keys change: ``topology.hops.1.buffer`` names hop 1's link."""
    return [name for key, name, _ in core_links(scenario) if any(k == key or k.startswith(key + ".") for k in keys)]


def _read_file(path: Path) -> str:
    if path.is_dir():
        raise _error("", f"'{path}' is a directory, not a scenario file")
    if not path.is_file():
        raise _error("", f"scenario file '{path}' does not exist")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _error("", f"cannot read scenario file '{path}': {exc.strerror}") from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise _error("", f"'{path}' is UTF-16 text; scenario files are UTF-8 (save it as UTF-8)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _error("", f"'{path}' is not UTF-8 text: byte 0x{data[exc.start]:02x} on line {line} "
                         "(scenario files are UTF-8; a binary file or another encoding?)") from None


def parse_override(assignment: str) -> tuple[str, Any]:
    """Splits ``key=value``; the value is read as a TOML value when it is one, else as a string."""
    key, separator, raw = assignment.partition("=")
    key = key.strip()
    if not separator or not key:
        raise _error("--set", f"'{assignment}' is not key=value (e.g. topology.bottleneck.rate=25Mbps)")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def apply_overrides(scenario: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Returns a copy of ``scenario`` with each dotted key set to its value."""
    if not isinstance(overrides, Mapping):
        raise _error("set", f"expected a mapping of dotted keys to values, e.g. {{'flows.0.cc': 'reno'}}, "
                            f"not {type(overrides).__name__}")
    result = copy.deepcopy(scenario)
    for dotted, value in overrides.items():
        if not isinstance(dotted, str):
            raise _error("set", f"keys are dotted strings such as 'topology.bottleneck.rate', not {dotted!r}")
        parts = dotted.split(".")
        if not all(parts):
            raise _error("set", f"'{dotted}' is not a dotted key: a part is empty (e.g. 'topology.bottleneck.rate')")
        node: Any = result
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            if isinstance(node, list):
                if not part.isdigit() or int(part) >= len(node):
                    raise _error(dotted, f"'{part}' is not a position in {'.'.join(parts[:depth]) or 'the list'}, "
                                 f"which has {len(node)} entries (0 to {len(node) - 1})")
                index = int(part)
                if last:
                    node[index] = value
                else:
                    node = node[index]
            elif isinstance(node, dict):
                if last:
                    node[part] = value
                else:
                    node = node.setdefault(part, {})
            else:
                raise _error(dotted, f"cannot set a key inside '{'.'.join(parts[:depth])}', which is {node!r}")
    return result


def to_json(scenario: Mapping[str, Any]) -> str:
    """The JSON text the core reads. NumPy scalars count as numbers; TOML dates and times, NaN and
    infinity have no meaning in a scenario and are refused with their key."""
    _check_values(scenario, "")
    try:
        return json.dumps(scenario, default=_plain_number, allow_nan=False)
    except RecursionError:
        raise _error("", "the scenario nests lists or tables too deeply to be a scenario") from None


def _plain_number(value: Any) -> Any:
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    raise TypeError(f"{type(value).__name__} is not a scenario value")


def _check_depth(source: Any) -> None:
    """Refuses tables and lists nested deeper than _MAX_DEPTH, naming the key where they pass it;
    without recursion, so that any depth gets this error rather than a RecursionError."""
    pending = [(source, "", 0)]
    while pending:
        node, key, depth = pending.pop()
        if depth > _MAX_DEPTH:
            raise _error(key, "nests lists or tables too deeply to be a scenario")
        if isinstance(node, Mapping):
            pending.extend((value, f"{key}.{name}" if key else str(name), depth + 1) for name, value in node.items())
        elif isinstance(node, (list, tuple)):
            pending.extend((value, f"{key}.{index}", depth + 1) for index, value in enumerate(node))


def _check_values(node: Any, key: str, depth: int = 0) -> None:
    """Names the key of the first value JSON cannot carry or the core cannot mean."""
    if depth > _MAX_DEPTH:
        raise _error(key, "nests lists or tables too deeply to be a scenario")
    if isinstance(node, Mapping):
        for name, value in node.items():
            if not isinstance(name, str):
                raise _error(key or "scenario", f"keys are text, not {name!r}")
            _check_values(value, f"{key}.{name}" if key else name, depth + 1)
    elif isinstance(node, (list, tuple)):
        for index, value in enumerate(node):
            _check_values(value, f"{key}.{index}", depth + 1)
    elif isinstance(node, (datetime.date, datetime.time)):
        raise _error(key, f"{node.isoformat()} is a TOML date or time, which no scenario key takes; "
                          "durations and times are strings with a unit, e.g. \"10s\"")
    elif isinstance(node, float) or (hasattr(node, "item") and type(node).__module__ == "numpy"):
        plain = node.item() if hasattr(node, "item") else node
        if isinstance(plain, float) and not math.isfinite(plain):
            raise _error(key, f"{plain} is not a finite number")
    elif not isinstance(node, (str, int, bool)) and node is not None:
        raise _error(key, f"a {type(node).__name__} is not a scenario value (text, numbers, booleans, lists and tables are)")
