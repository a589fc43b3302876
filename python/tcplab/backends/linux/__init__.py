"""The Linux back-end: a scenario's flows as real kernel TCP connections between network
namespaces, its links emulated in real time by the simulator's own channels (crate
``tcplab-emu``), its results in the simulator's tables. docs/linux-backend.md describes it.

- ``preflight.py``: what is checked before anything is created;
- ``congestion_controls.py``: the kernel's module or tcplab's BPF version for each flow;
- ``bpf_build.py``, ``bpf_load.py``: tcplab's BPF algorithms (``bpf/``) built, registered with
  the kernel, their events read, unregistered;
- ``lab.py``: the hosts' namespaces, their set-up and their removal;
- ``endpoint.py``: the program at each host (a flow's sender or receiver);
- ``run.py``: one run, from set-up to clean-up;
- ``tables.py``: the measurements as the simulator's tables.
"""

from tcplab.backends.linux.bpf_build import BpfBuildError
from tcplab.backends.linux.bpf_load import BpfLoadError
from tcplab.backends.linux.preflight import BackendUnavailable
from tcplab.backends.linux.run import EndpointFailed, run_on_linux

__all__ = ["BackendUnavailable", "BpfBuildError", "BpfLoadError", "EndpointFailed", "run_on_linux"]
