"""The ns-3 back-end: a scenario run by ns-3 3.44 (the simulator the TCP-do and TCP-RTA papers
used) from the `ns3` wheel, its results in the simulator's tables. docs/ns3-backend.md describes
it.

- ``preflight.py``: what ns-3 can express, and each flow's ns-3 classes and attribute values;
- ``plan.py``: the scenario as the engine's plan;
- ``engine/`` and ``build.py``: the one ns-3 program (``engine/main.cc`` describes it), compiled
  once against the wheel;
- ``run.py``: one run, from plan to tables;
- ``tables.py``: the engine's output as the simulator's tables.
"""

from tcplab.backends.ns3.build import Ns3Unavailable
from tcplab.backends.ns3.run import Ns3Failed, run_on_ns3

__all__ = ["Ns3Failed", "Ns3Unavailable", "run_on_ns3"]
