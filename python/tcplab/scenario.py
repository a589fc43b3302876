"""Reading scenarios and applying overrides before they go to the simulator.

A scenario is TOML (a file, a TOML string, or an already-parsed dict). Overrides are dotted keys,
with list positions as numbers: ``topology.bottleneck.rate = "25Mbps"``, ``flows.0.cc = "reno"``.
"""

from __future__ import annotations

import copy
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcplab._core import ScenarioError


def _error(key: str, message: str) -> ScenarioError:
    # Same argument layout as errors raised by the Rust core: (text, key, message).
    return ScenarioError(f"{key}: {message}" if key else message, key, message)


def load_scenario(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """Returns the scenario as a dict, from a TOML file path, a TOML string or a mapping."""
    if isinstance(source, Mapping):
        return copy.deepcopy(dict(source))
    text = str(source)
    path = Path(text)
    looks_like_path = "\n" not in text and (text.endswith(".toml") or path.exists())
    if looks_like_path:
        if not path.is_file():
            raise _error("", f"scenario file '{path}' does not exist")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise _error("", f"cannot read scenario file '{path}': {exc.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = f"'{path}'" if looks_like_path else "the scenario"
        raise _error("", f"{where} is not valid TOML: {exc}") from None


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
    result = copy.deepcopy(scenario)
    for dotted, value in overrides.items():
        parts = dotted.split(".")
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
    """The JSON text the core reads. TOML dates and times have no meaning in a scenario."""
    try:
        return json.dumps(scenario)
    except TypeError as exc:
        raise _error("", f"the scenario holds a value tcplab cannot read: {exc}") from None
