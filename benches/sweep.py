"""Benchmark of sweeps on Dask: speed-up with workers, overhead per run, memory of a long sweep.

    python benches/sweep.py [--runs 32] [--long 500]

Prints, for the quickstart scenario (20 simulated seconds, three flows):
- the time of one run in this process (``tcplab.run``: simulation and result tables), the baseline;
- a sweep of ``--runs`` runs on a local cluster of 1 and of 2 worker processes, and of one process
  with 2 threads: wall time without the cluster's start-up, speed-up over 1 worker, and the
  overhead per run beyond the run itself (1 worker: wall / runs - baseline);
- a sweep of ``--long`` runs on 2 worker processes: the peak resident memory of this process and
  of all processes together (sampled every 50 ms with psutil).
Targets (issue 11): speed-up >= 1.8x on 2 cores, overhead < 50 ms per run, peak < 500 MB.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import threading
import time
from pathlib import Path

import psutil
from distributed import Client, LocalCluster

import tcplab

SCENARIO = str(Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml")


def baseline_run_seconds(repeats: int) -> float:
    """Median wall time of one run in this process."""
    tcplab.run(SCENARIO)  # warm caches and imports
    times = []
    for run in range(repeats):
        started = time.perf_counter()
        tcplab.run(SCENARIO, run_index=run)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def timed_sweep(runs: int, processes: bool, workers: int, threads: int) -> float:
    """Wall time of a sweep of ``runs`` runs, the cluster already started."""
    with LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=processes, dashboard_address=None, silence_logs=logging.ERROR
    ) as cluster, Client(cluster) as client, tempfile.TemporaryDirectory() as out:
        client.submit(sum, [1]).result()  # workers up and answering
        started = time.perf_counter()
        tcplab.sweep(SCENARIO, runs=runs, out=Path(out) / "sweep", client=client)
        return time.perf_counter() - started


class MemorySampler(threading.Thread):
    """Peak RSS of this process alone and with all its descendants, sampled every 50 ms."""

    def __init__(self):
        super().__init__(daemon=True)
        self.me = psutil.Process()
        self.peak_self = 0
        self.peak_total = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.05):
            own = self.me.memory_info().rss
            total = own
            for child in self.me.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
            self.peak_self = max(self.peak_self, own)
            self.peak_total = max(self.peak_total, total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=32)
    parser.add_argument("--long", type=int, default=500)
    args = parser.parse_args()

    base = baseline_run_seconds(8)
    print(f"one run in-process (median of 8): {base * 1000:.1f} ms")
    one = timed_sweep(args.runs, processes=True, workers=1, threads=1)
    two = timed_sweep(args.runs, processes=True, workers=2, threads=1)
    threaded = timed_sweep(args.runs, processes=False, workers=1, threads=2)
    print(f"{args.runs} runs, 1 worker process:            {one:6.2f} s")
    print(f"{args.runs} runs, 2 worker processes:          {two:6.2f} s  speed-up {one / two:.2f}x")
    print(f"{args.runs} runs, 1 process with 2 threads:    {threaded:6.2f} s  speed-up {one / threaded:.2f}x")
    print(f"overhead per run beyond the run itself (1 worker): {(one / args.runs - base) * 1000:.1f} ms")

    sampler = MemorySampler()
    sampler.start()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        tcplab.sweep(SCENARIO, runs=args.long, out=Path(out) / "long", workers=2)
    wall = time.perf_counter() - started
    sampler.stopped.set()
    sampler.join()
    print(f"{args.long} runs on 2 worker processes: {wall:.1f} s (cluster start included); peak RSS "
          f"{sampler.peak_self / 2**20:.0f} MB in this process, {sampler.peak_total / 2**20:.0f} MB with its workers")


if __name__ == "__main__":
    main()
