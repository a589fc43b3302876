"""tcplab: a congestion-control laboratory.

Describe a network and its flows in a TOML scenario, run it on tcplab's fast deterministic
simulator, and get pandas tables and plots back::

    import tcplab
    result = tcplab.run("scenarios/quickstart.toml", duration="10s")
    print(result.flows[["name", "cc", "goodput_bps", "rtt_mean_ms"]])
    result.plot("overview.png")

Experiments over varied parameters and repeated runs run on Dask::

    sweep = tcplab.sweep("scenarios/quickstart.toml", {"flows.0.cc": ["cubic", "bbr"]}, runs=5, out="results/cc")
    print(sweep.aggregate)
"""

from __future__ import annotations

import importlib
from typing import Any

from tcplab._core import AlgorithmError, ScenarioError, __version__
from tcplab.scenario import ScenarioWarning, load_scenario

# The rest loads on first use (PEP 562), so that a command that needs none of it (`tcplab run`
# without plots never needs pandas, Dask or matplotlib) does not pay for importing it.
_LAZY = {
    "algorithms": "tcplab.api",
    "run": "tcplab.api",
    "validate": "tcplab.api",
    "Result": "tcplab.result",
    "CongestionControl": "tcplab.python_cc",
    "Connection": "tcplab.python_cc",
    "register_algorithm": "tcplab.python_cc",
    "SweepResult": "tcplab.sweeps",
    "compare": "tcplab.sweeps",
    "load_sweep": "tcplab.sweeps",
    "sweep": "tcplab.sweeps",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tcplab' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "AlgorithmError",
    "CongestionControl",
    "Connection",
    "Result",
    "ScenarioError",
    "ScenarioWarning",
    "SweepResult",
    "__version__",
    "algorithms",
    "compare",
    "load_sweep",
    "load_scenario",
    "register_algorithm",
    "run",
    "sweep",
    "validate",
]
