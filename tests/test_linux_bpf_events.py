"""The events of the papers' algorithms (ROCCET, TCP-RTA, TCP-do) reach the results from the
kernel: each BPF version runs a few seconds on a scenario that makes it report its event, and the
event is in result.events on the Linux back-end, as it is on the simulator for the same scenario.
Root and real namespaces, as tests/test_linux_backend.py; each run takes its duration in real
time (at most 5 s here)."""

from __future__ import annotations

import pytest

import tcplab


def dumbbell(cc: str, bottleneck: str, duration: str, count: int = 1) -> str:
    return f"""
name = "events-{cc}"
[simulation]
duration = "{duration}"
sample_interval = "100ms"
[topology]
kind = "dumbbell"
bottleneck = {{ {bottleneck} }}
access = {{ rate = "1Gbps", delay = "1ms", buffer = "1000p" }}
[[flows]]
cc = "{cc}"
count = {count}
"""


# ROCCET: a 16-BDP buffer lets the RTT pass twice its minimum, so LAUNCH ends on srRTT (not a
# loss) and ORBITER cuts within the first second (simulator: exit at 0.3 s, first event 0.5 s).
ROCCET = dumbbell("roccet", 'rate = "50Mbps", delay = "14ms", buffer = "16BDP"', "4s")
# TCP-RTA: a 900 ms path, above the 800 ms threshold: three samples switch it to Hybla (the
# simulator's flow starts sending at once and switches at 0.9 s; the kernel's first data ACKs
# come after the handshake, at 1.8 s).
RTA = dumbbell("rta", 'rate = "10Mbps", delay = "450ms", buffer = "1BDP"', "5s")
# TCP-do: two bulk flows on a 1-BDP buffer; the standing queue's RTT changes push the
# oscillation frequency past the threshold (simulator: the first cut at about 1 s).
TCP_DO = dumbbell("tcp_do", 'rate = "50Mbps", delay = "18ms", buffer = "1BDP"', "5s", count=2)

DURATION_S = {"roccet": 4.0, "rta": 5.0, "tcp_do": 5.0}
CASES = {
    "roccet": (ROCCET, ["roccet_launch_exit", "roccet_event"]),
    "rta": (RTA, ["switch_to_hybla"]),
    "tcp_do": (TCP_DO, ["tcpdo_reduction"]),
}


@pytest.mark.parametrize("algorithm", list(CASES))
def test_the_algorithms_events_reach_the_results_from_the_kernel_as_from_the_simulator(algorithm):
    text, expected = CASES[algorithm]
    simulated = tcplab.run(text)
    kernel = tcplab.run(text, backend="linux")
    for name, result in (("simulator", simulated), ("linux", kernel)):
        events = result.events
        for event in expected:
            rows = events[events["event"] == event]
            assert len(rows) > 0, f"{algorithm} on the {name}: no {event} among {events['event'].value_counts().to_dict()}"
            assert rows["name"].str.startswith(f"{algorithm}-").all(), "the event is the flow's"
            assert (rows["time_s"] >= 0).all() and (rows["time_s"] <= DURATION_S[algorithm]).all()
