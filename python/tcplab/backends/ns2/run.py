"""One scenario on ns-2.35: checked, written as TCL, run by the `ns` binary with a progress bar,
and read back into the simulator's tables."""

from __future__ import annotations

import json
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab._core import ScenarioError
from tcplab.backends.ns2 import preflight
from tcplab.backends.preflight_common import check_routes
from tcplab.backends.ns2.script import FlowPlan, write_script
from tcplab.backends.ns2.tables import build_result
from tcplab.backends.engine_process import last_lines, run_with_progress

class Ns2Failed(RuntimeError):
    """ns-2 exited with an error; the message has its last lines of output."""


def run_on_ns2(scenario_json: str, progress: bool = False, keep: Path | None = None):
    """Runs the scenario (JSON text, overrides applied) on ns-2.35 and returns a ``Result`` whose
    summary says ``backend = "ns2"``. With ``keep``, the TCL script and ns-2's output stay there."""
    ns = preflight.find_ns()
    resolved_toml = _core.validate(scenario_json)
    scenario = tomllib.loads(resolved_toml)
    preflight.check_scenario(scenario)
    network = json.loads(_core.network(scenario_json))
    check_routes(network, "ns-2")
    plans = flow_plans(network, scenario)
    with tempfile.TemporaryDirectory(prefix="tcplab-ns2-") as scratch:
        directory = Path(keep) if keep is not None else Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        samples = directory / "samples.txt"
        events = directory / "events.tr"
        script = directory / "scenario.tcl"
        script.write_text(write_script(network, scenario, plans, str(samples), str(events)), encoding="utf-8")
        started = time.monotonic()
        _run_ns(ns, script, directory / "ns2-output.txt", network["duration_ns"] / 1e9, progress)
        wall = time.monotonic() - started
        return build_result(scenario, resolved_toml, network, samples.read_text(encoding="utf-8"),
                            events.read_text(encoding="utf-8"), wall)


def flow_plans(network: dict[str, Any], scenario: dict[str, Any]) -> list[FlowPlan | None]:
    """Each flow's ns-2 agent, checked key by key; None for UDP flows."""
    entries = [(index, entry) for index, entry in enumerate(scenario["flows"]) for _ in range(entry.get("count", 1))]
    plans: list[FlowPlan | None] = []
    module_settings: dict[str, tuple[str, dict[str, int]]] = {}
    for flow in network["flows"]:
        index, entry = entries[flow["flow_id"]]
        key = f"flows.{index}"
        if flow["protocol"] == "udp":
            plans.append(None)
            continue
        agent, module = preflight.agent_for(flow["cc"], flow["tcp"], key)
        preflight.check_tcp(flow["tcp"], key, linux_agent=module is not None)
        parameters = preflight.check_params(flow["cc"], module, entry.get("params") or {}, key)
        if module is not None:
            # A module's parameters are global in ns-2 (set_ca_default_param): one set per module.
            earlier = module_settings.setdefault(module, (key, parameters))
            if earlier[1] != parameters:
                raise ScenarioError(f"{key}.params: ns-2 sets {module}'s parameters for every connection at once, "
                                    f"and {earlier[0]} gives it others; give both flows the same params")
        plans.append(FlowPlan(agent, module, parameters))
    return plans


def _run_ns(ns: str, script: Path, output: Path, duration_s: float, progress: bool) -> None:
    code = run_with_progress([ns, str(script)], output, duration_s, progress, "ns-2", cwd=script.parent)
    if code != 0:
        # ns-2 reports TCL errors on standard output and C++ ones on standard error: the log has both.
        raise Ns2Failed(f"ns-2 exited with code {code} on {script}:\n" + last_lines(output))
