"""Congestion control algorithms written in Python: the base class, the names they go by, and how
the simulator creates them.

A scenario names a Python algorithm as ``cc = "python:package.module:ClassName"`` (imported by
that path wherever the run happens, Dask workers included), or by a name registered with
``register_algorithm`` (or ``tcplab.run(..., algorithms={"mine": MyClass})``), which holds in this
process only. ``params`` go to the constructor as keyword arguments.

The simulator calls the object at every ACK, congestion event and recovery exit, and reads back its
``cwnd``, ``ssthresh``, ``pacing_rate`` and ``state`` attributes after each call: set them, there is
nothing to return. Units as everywhere in tcplab: bytes, nanoseconds, bits per second.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from typing import Any

PREFIX = "python:"
_REGISTERED: dict[str, type] = {}


@dataclass(frozen=True)
class Connection:
    """What an algorithm learns about its connection when it is created."""

    mss: int
    """Maximum segment size, bytes of payload per full segment."""
    initial_window_segments: int
    seed: int
    """Seed for the algorithm's own random numbers (derived from the flow's random stream)."""


class CongestionControl:
    """Base class of congestion control algorithms written in Python.

    The attributes the simulator reads after every call:

    - ``cwnd``: congestion window in bytes (at least one segment);
    - ``ssthresh``: slow-start threshold in bytes, or None while it is unbounded;
    - ``pacing_rate``: bits per second to pace at, or None (no pacing of its own);
    - ``state``: a short name of the current state, for the time series ("slow_start");
    - ``events``: names of notable events to report in the results' events table; append to it.

    The methods mirror the Rust trait ``CongestionControl`` (crates/tcplab-core/src/cc/mod.rs);
    ``ack`` and ``event`` carry the same fields as its ``AckEvent`` and ``CongestionEvent``.
    ``on_packet_sent`` and ``on_timeout_recovery_exit`` cost a call per packet or per timeout and
    are only called when a subclass defines them.
    """

    def __init__(self, connection: Connection):
        self.connection = connection
        self.mss = connection.mss
        self.cwnd: int = connection.initial_window_segments * connection.mss
        self.ssthresh: int | None = None
        self.pacing_rate: float | None = None
        self.state: str = "slow_start"
        self.events: list[str] = []

    def on_ack(self, ack) -> None:
        """An ACK acknowledged data or gave an RTT sample (``ack.acked_bytes``, ``ack.rtt_sample``,
        ``ack.srtt``, ``ack.min_rtt``, ``ack.bytes_in_flight``, ``ack.in_recovery``,
        ``ack.cwnd_limited``, ``ack.delivery_rate``, ... ; ``ack.may_raise_cwnd`` as in Rust)."""

    def on_congestion_event(self, event) -> None:
        """A loss or ECN signal: ``event.kind`` is "fast_retransmit", "timeout" or "ecn";
        ``event.bytes_in_flight`` is the FlightSize. Set ssthresh and cwnd; after a timeout cwnd
        must be the loss window (one segment)."""

    def on_recovery_exit(self, now: int) -> None:
        """Fast recovery ended (the recovery point was acknowledged)."""

    def undo_reduction(self, prior_cwnd: int, prior_ssthresh: int | None) -> None:
        """The last reduction proved spurious (a timestamp or F-RTO showed the original segment
        arrived): restore the window. The default is Linux's ``tcp_reno_undo_cwnd``: cwnd and
        ssthresh go back up to their values before the reduction (None: unbounded)."""
        self.cwnd = max(self.cwnd, prior_cwnd)
        if self.ssthresh is not None:
            self.ssthresh = None if prior_ssthresh is None else max(self.ssthresh, prior_ssthresh)

    def on_packet_sent(self, now: int, bytes: int, bytes_in_flight_before: int) -> None:  # noqa: A002
        """A segment left the sender (called only when a subclass defines it)."""

    def on_timeout_recovery_exit(self, now: int) -> None:
        """All data outstanding at a timeout has been acknowledged (called only when defined)."""


def register_algorithm(name: str, cls: type) -> None:
    """Lets scenarios in this process name ``cls`` as ``cc = name``."""
    if not isinstance(cls, type) or not issubclass(cls, CongestionControl):
        raise TypeError(f"algorithm '{name}': {cls!r} is not a subclass of tcplab.CongestionControl")
    if not name or name.startswith(PREFIX):
        raise ValueError(f"'{name}' cannot be registered: names starting with '{PREFIX}' are module paths")
    _REGISTERED[name] = cls


def _knows(name: str) -> bool:
    """Called by the simulator for names it does not have built in."""
    return name.startswith(PREFIX) or name in _REGISTERED


def _resolve(name: str) -> type:
    """Called by the simulator's validation: the class ``name`` stands for, or ValueError why not."""
    return _REGISTERED.get(name) or _import(name)


def _create(name: str, params_json: str, mss: int, initial_window_segments: int, seed: int) -> CongestionControl:
    """Called by the simulator: an instance of the class ``name`` stands for, for one connection.
    Raises ValueError with a message for the scenario's error."""
    cls = _resolve(name)
    params = json.loads(params_json) if params_json else None
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValueError(f"params must be a table of keyword arguments for {cls.__name__}, got {params!r}")
    connection = Connection(mss=mss, initial_window_segments=initial_window_segments, seed=seed)
    try:
        instance = cls(connection, **params)
    except TypeError as exc:
        raise ValueError(f"{cls.__name__}({', '.join(params)}): {exc}") from None
    return instance


def _import(name: str) -> type:
    path = name[len(PREFIX):]
    module_name, separator, class_name = path.partition(":")
    if not separator or not module_name or not class_name:
        raise ValueError(f"'{name}' is not {PREFIX}package.module:ClassName")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import module '{module_name}': {exc}") from None
    cls: Any = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"module '{module_name}' has no class '{class_name}'")
    if not isinstance(cls, type) or not issubclass(cls, CongestionControl):
        raise ValueError(f"'{module_name}:{class_name}' is not a subclass of tcplab.CongestionControl")
    return cls
