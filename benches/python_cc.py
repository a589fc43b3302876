"""Benchmark: an algorithm written in Python against the same algorithm in Rust.

    python benches/python_cc.py

Runs the 1 Gbit/s, 10-flow dumbbell (scenarios/dumbbell-1g-10flows.toml, 10 simulated seconds)
with the built-in `reno` and with examples/python_cc/reno.py (the same rules in the same integer
arithmetic, so the two runs simulate the same packets), prints both wall times and the slowdown
(target: at most 5x), then profiles the Python run with cProfile: the calls into the algorithm
and the time spent inside them.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "python_cc"))

import tcplab  # noqa: E402

SCENARIO = (ROOT / "scenarios" / "dumbbell-1g-10flows.toml").read_text()


def timed(algorithm: str) -> tuple[float, tcplab.Result]:
    text = SCENARIO.replace('cc = "newreno"', f'cc = "{algorithm}"')
    started = time.perf_counter()
    result = tcplab.run(text)
    return time.perf_counter() - started, result


def main() -> None:
    rust_wall, rust = timed("reno")
    python_wall, python = timed("python:reno:Reno")
    same = rust.summary["packets_transmitted"] == python.summary["packets_transmitted"]
    print(f"rust reno:   {rust_wall:6.2f} s wall for 10 simulated s, {rust.summary['packets_transmitted']:,} packets")
    print(f"python reno: {python_wall:6.2f} s wall, {python.summary['packets_transmitted']:,} packets (same: {same})")
    print(f"slowdown: {python_wall / rust_wall:.2f}x")

    profiler = cProfile.Profile()
    profiler.enable()
    timed("python:reno:Reno")
    profiler.disable()
    stats = pstats.Stats(profiler)
    print("\ncalls into the Python algorithm (cProfile; total time includes the profiler's own cost):")
    for (filename, _, function), (_, calls, own, total, _) in sorted(stats.stats.items(), key=lambda kv: -kv[1][3]):
        if filename.endswith("reno.py"):
            print(f"  {function:24} {calls:>10,} calls  {total:6.2f} s inside")


if __name__ == "__main__":
    main()
