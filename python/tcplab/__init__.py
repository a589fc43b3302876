"""tcplab: a congestion-control laboratory.

Describe a network and its flows in a TOML scenario, run it on tcplab's fast deterministic
simulator, and get pandas tables and plots back::

    import tcplab
    result = tcplab.run("scenarios/quickstart.toml", duration="10s")
    print(result.flows[["name", "cc", "goodput_bps", "rtt_mean_ms"]])
    result.plot("overview.png")
"""

from tcplab._core import ScenarioError, __version__
from tcplab.api import algorithms, run, validate
from tcplab.result import Result
from tcplab.scenario import load_scenario

__all__ = ["Result", "ScenarioError", "__version__", "algorithms", "load_scenario", "run", "validate"]
