"""What a sweep runs: a base scenario, the keys it varies, and how many runs each point gets.

Points are the Cartesian product of the varied values (or, with ``zip``, the lists paired
position by position). Run ``r`` of a point is the scenario with the point's values and
``simulation.run = r``: with the scenario's seed, the run index selects every random stream, so one
point and run can be rerun alone and give the same results.

A varied parameter has a label (its column in the result tables) and the dotted keys it sets;
usually one key, its own label. ``tcplab compare`` varies one label, ``algorithm``, that sets the
algorithm of every TCP flow. Several scenario files make a parameter whose values
are file paths; its label is ``scenario_file``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcplab.api import SWEEP_BACKENDS
from tcplab.scenario import _error, apply_overrides, load_scenario, parse_override, to_json

MAX_RUNS_PER_POINT = 10_000
# The label of the parameter that several scenario files make.
SCENARIO_LABEL = "scenario_file"
# Varied labels become columns beside the tables' own; these would clash with them.
RESERVED_LABELS = {"run", "name", "description", "scenario"}


@dataclass(frozen=True)
class Parameter:
    """One varied parameter: a column label, the dotted keys it sets, and its values in order."""

    label: str
    keys: tuple[str, ...]
    values: tuple[Any, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "keys": list(self.keys), "values": list(self.values)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Parameter:
        return cls(data["label"], tuple(data["keys"]), tuple(data["values"]))


@dataclass
class SweepPlan:
    """A base scenario (or several files), the varied parameters, pairing and repetitions."""

    scenario: dict[str, Any]
    parameters: list[Parameter] = field(default_factory=list)
    runs: int = 1
    zip: bool = False
    # Scenario files when the sweep varies the file itself: path -> scenario dict.
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Where every run executes: tcplab's simulator or another engine (tcplab.api.BACKENDS).
    backend: str = "simulator"

    def points(self) -> list[dict[str, Any]]:
        """Each point's values, label -> value, in sweep order (the first parameter varies slowest)."""
        if not self.parameters:
            return [{}]
        labels = [p.label for p in self.parameters]
        combos = zip(*(p.values for p in self.parameters)) if self.zip else itertools.product(*(p.values for p in self.parameters))
        return [dict(zip(labels, combo)) for combo in combos]

    def scenario_for(self, values: Mapping[str, Any], run: int) -> dict[str, Any]:
        """The scenario of one point and run, every varied key set."""
        base = self.files[values[SCENARIO_LABEL]] if SCENARIO_LABEL in values and self.files else self.scenario
        overrides: dict[str, Any] = {}
        for parameter in self.parameters:
            if parameter.label == SCENARIO_LABEL and self.files:
                continue
            for key in parameter.keys:
                overrides[key] = values[parameter.label]
        overrides["simulation.run"] = run
        return apply_overrides(base, overrides)

    def column_kinds(self) -> dict[str, str]:
        """Per label, how its values are stored in the tables: 'int', 'float' or 'str'."""
        kinds = {}
        for parameter in self.parameters:
            numbers = [v for v in parameter.values if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if len(numbers) < len(parameter.values):
                kinds[parameter.label] = "str"
            else:
                kinds[parameter.label] = "int" if all(isinstance(v, int) for v in numbers) else "float"
        return kinds

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "parameters": [p.to_dict() for p in self.parameters],
            "runs": self.runs,
            "zip": self.zip,
            "files": self.files,
            "backend": self.backend,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SweepPlan:
        return cls(
            scenario=data["scenario"],
            parameters=[Parameter.from_dict(p) for p in data["parameters"]],
            runs=data["runs"],
            zip=data["zip"],
            files=data.get("files", {}),
            backend=data.get("backend", "simulator"),
        )


def split_values(text: str) -> list[str]:
    """Splits ``a,b,{x=1,y=2}`` at the commas outside braces, brackets and quotes."""
    pieces, depth, quote, current = [], 0, "", []
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append("".join(current))
            current = []
            continue
        current.append(char)
    pieces.append("".join(current))
    return [piece.strip() for piece in pieces]


def parse_vary(assignment: str) -> Parameter:
    """``key=v1,v2,...`` from the command line; each value is read as a TOML value when it is one."""
    key, separator, raw = assignment.partition("=")
    key = key.strip()
    if not separator or not key or not raw.strip():
        raise _error("--vary", f"'{assignment}' is not key=value1,value2,... (e.g. topology.bottleneck.buffer=1BDP,4BDP)")
    values = tuple(parse_override(f"{key}={piece}")[1] for piece in split_values(raw))
    if any(piece == "" for piece in split_values(raw)):
        raise _error("--vary", f"'{assignment}' has an empty value")
    return Parameter(key, (key,), values)


def plan_from(
    sources: Sequence[str | Path | Mapping[str, Any]],
    vary: Sequence[Parameter] = (),
    runs: int | None = None,
    zip_values: bool | None = None,
    overrides: Mapping[str, Any] | None = None,
    backend: str = "simulator",
) -> SweepPlan:
    """A plan from scenario sources, their ``[sweep]`` tables and the given parameters.

    Parameters given here replace a ``[sweep]`` table's parameter of the same label; ``runs`` and
    ``zip_values`` replace the table's when given.
    """
    if not sources:
        raise _error("scenario", "a sweep needs a scenario")
    loaded = [load_scenario(source) for source in sources]
    tables = [scenario.pop("sweep", None) or {} for scenario in loaded]
    table = _check_sweep_table(tables[0])
    parameters = {p.label: p for p in table["parameters"]}
    for parameter in vary:
        parameters[parameter.label] = parameter
    files: dict[str, dict[str, Any]] = {}
    if len(loaded) > 1:
        names = [str(source) for source in sources]
        if len(set(names)) != len(names):
            raise _error("scenario", "the same scenario file is given twice")
        files = dict(zip(names, loaded))
        parameters = {SCENARIO_LABEL: Parameter(SCENARIO_LABEL, (), tuple(names)), **parameters}
    plan = SweepPlan(
        scenario=loaded[0],
        parameters=list(parameters.values()),
        runs=table["runs"] if runs is None else runs,
        zip=table["zip"] if zip_values is None else zip_values,
        files=files,
        backend=backend,
    )
    if overrides:
        plan.scenario = apply_overrides(plan.scenario, overrides)
        plan.files = {name: apply_overrides(s, overrides) for name, s in plan.files.items()}
    _check(plan)
    return plan


def _check_sweep_table(table: Mapping[str, Any]) -> dict[str, Any]:
    """The ``[sweep]`` table: ``runs``, ``zip`` and ``[sweep.vary]`` with a list per dotted key."""
    allowed = {"runs", "zip", "vary"}
    for key in table:
        if key not in allowed:
            raise _error(f"sweep.{key}", f"unknown key; allowed: {', '.join(sorted(allowed))}")
    vary = table.get("vary", {})
    if not isinstance(vary, Mapping):
        raise _error("sweep.vary", "must be a table of dotted keys to lists of values")
    parameters = []
    for key, values in vary.items():
        if not isinstance(values, list) or not values:
            raise _error(f"sweep.vary.{key}", f"{values!r} is not a non-empty list of values")
        parameters.append(Parameter(key, (key,), tuple(values)))
    runs = table.get("runs", 1)
    zip_values = table.get("zip", False)
    if not isinstance(zip_values, bool):
        raise _error("sweep.zip", f"{zip_values!r} is not true or false")
    return {"parameters": parameters, "runs": runs, "zip": zip_values}


def _check(plan: SweepPlan) -> None:
    if plan.backend not in SWEEP_BACKENDS:
        raise _error("--backend", f"'{plan.backend}' is not a back-end a sweep runs on; allowed: {', '.join(SWEEP_BACKENDS)} "
                     "(the Linux back-end runs one scenario at a time in real time: tcplab run --backend linux)")
    if isinstance(plan.runs, bool) or not isinstance(plan.runs, int) or not 1 <= plan.runs <= MAX_RUNS_PER_POINT:
        raise _error("--runs (sweep.runs)", f"{plan.runs!r} is outside 1 to {MAX_RUNS_PER_POINT}")
    labels = [p.label for p in plan.parameters]
    for parameter in plan.parameters:
        if parameter.label in RESERVED_LABELS:
            raise _error(f"--vary {parameter.label}", f"cannot be varied: '{parameter.label}' names a column of the results")
        if labels.count(parameter.label) > 1:
            raise _error(f"--vary {parameter.label}", "is varied twice")
        if len(set(map(repr, parameter.values))) != len(parameter.values):
            raise _error(f"--vary {parameter.label}", f"lists a value twice: {list(parameter.values)}")
    if plan.zip and len({len(p.values) for p in plan.parameters}) > 1:
        lengths = ", ".join(f"{p.label}: {len(p.values)}" for p in plan.parameters)
        raise _error("--zip", f"pairs lists position by position, so they need equal lengths ({lengths})")
    # Every point is set up and validated as its runs will be, so a wrong key, list position or
    # value (an unknown algorithm in compare's list) stops the sweep before any worker starts.
    for values in plan.points():
        _validate_point(plan.scenario_for(values, 0), values)


def _validate_point(scenario: Mapping[str, Any], values: Mapping[str, Any]) -> None:
    from tcplab import _core
    from tcplab._core import ScenarioError

    try:
        _core.validate(to_json(scenario))
    except ScenarioError as exc:
        point = ", ".join(f"{label} = {value!r}" for label, value in values.items())
        key = getattr(exc, "key", "") or "scenario"
        message = getattr(exc, "message", str(exc))
        raise _error(key, f"{message} (at the point {point}; no run was started)") from None


def compare_plan(
    source: str | Path | Mapping[str, Any],
    algorithms: Sequence[str],
    runs: int = 1,
    overrides: Mapping[str, Any] | None = None,
    backend: str = "simulator",
) -> SweepPlan:
    """The same scenario with each algorithm in turn on every TCP flow: one parameter, ``algorithm``."""
    scenario = load_scenario(source)
    scenario.pop("sweep", None)
    if overrides:
        scenario = apply_overrides(scenario, overrides)
    flows = scenario.get("flows")
    if not isinstance(flows, list):
        raise _error("flows", "the scenario has no [[flows]] to compare algorithms on")
    keys = tuple(
        f"flows.{index}.cc"
        for index, flow in enumerate(flows)
        if isinstance(flow, Mapping) and flow.get("protocol", "tcp") == "tcp"
    )
    if not keys:
        raise _error("flows", "the scenario has no TCP flow whose algorithm could be compared")
    if not algorithms or any(not name for name in algorithms):
        raise _error("--cc", f"'{','.join(algorithms)}' is not a list of algorithms (e.g. --cc cubic,bbr)")
    plan = SweepPlan(scenario=scenario, parameters=[Parameter("algorithm", keys, tuple(algorithms))], runs=runs,
                     backend=backend)
    _check(plan)
    return plan
