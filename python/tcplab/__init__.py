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

from tcplab._core import AlgorithmError, ScenarioError, __version__
from tcplab.api import algorithms, run, validate
from tcplab.result import Result
from tcplab.python_cc import CongestionControl, Connection, register_algorithm
from tcplab.scenario import load_scenario
from tcplab.sweeps import SweepResult, compare, load_sweep, sweep

__all__ = [
    "AlgorithmError",
    "CongestionControl",
    "Connection",
    "Result",
    "ScenarioError",
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
