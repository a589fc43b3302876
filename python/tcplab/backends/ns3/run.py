"""One scenario on ns-3 3.44: checked, written as a plan, run by the compiled engine with a
progress bar, and read back into the simulator's tables."""

from __future__ import annotations

import json
import tempfile
import time
import tomllib
from pathlib import Path

from tcplab import _core
from tcplab.backends.ns3 import build, preflight
from tcplab.backends.ns3.plan import write_plan
from tcplab.backends.ns3.tables import build_result
from tcplab.backends.engine_process import last_lines, run_with_progress
from tcplab.backends.preflight_common import check_routes

class Ns3Failed(RuntimeError):
    """The ns-3 engine exited with an error; the message has its last lines of output."""


def run_on_ns3(scenario_json: str, progress: bool = False, keep: Path | None = None):
    """Runs the scenario (JSON text, overrides applied) on ns-3 and returns a ``Result`` whose
    summary says ``backend = "ns3"``. With ``keep``, the plan and the engine's output stay there."""
    resolved_toml = _core.validate(scenario_json)
    scenario = tomllib.loads(resolved_toml)
    preflight.check_scenario(scenario)
    network = json.loads(_core.network(scenario_json))
    preflight.check_channels(network)
    check_routes(network, "ns-3")
    plan = write_plan(network, scenario)
    program = build.engine_program()
    with tempfile.TemporaryDirectory(prefix="tcplab-ns3-") as scratch:
        directory = Path(keep) if keep is not None else Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        plan_path = directory / "plan.txt"
        plan_path.write_text(plan, encoding="utf-8")
        started = time.monotonic()
        _run_engine(program, plan_path, directory, network["duration_ns"] / 1e9, progress)
        wall = time.monotonic() - started
        return build_result(scenario, resolved_toml, network, directory, wall)


def _run_engine(program: Path, plan: Path, directory: Path, duration_s: float, progress: bool) -> None:
    output = directory / "ns3-output.txt"
    code = run_with_progress([str(program), str(plan), str(directory)], output, duration_s, progress, "ns-3")
    if code != 0:
        raise Ns3Failed(f"the ns-3 engine exited with code {code} on {plan}:\n" + last_lines(output))
