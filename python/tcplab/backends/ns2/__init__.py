"""The ns-2 back-end: a scenario run by Debian's ns-2.35 (the simulator the Active Delay Control
and Compound TCP papers used), its results in the simulator's tables. docs/ns2-backend.md
describes it.

- ``preflight.py``: the `ns` binary, what ns-2 can express, and which agent runs each flow;
- ``script.py``: the scenario as a TCL script;
- ``run.py``: one run, from script to tables;
- ``tables.py``: ns-2's counters and samples as the simulator's tables.
"""

from tcplab.backends.ns2.preflight import Ns2Unavailable
from tcplab.backends.ns2.run import Ns2Failed, run_on_ns2

__all__ = ["Ns2Failed", "Ns2Unavailable", "run_on_ns2"]
