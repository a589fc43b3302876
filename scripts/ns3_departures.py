"""Evidence for the cases of scripts/ns3_comparison.py that miss a target: for each, the
measurement that ties the gap to a named departure of ns-3's model (docs/ns3-backend.md).

- The window after each reduction: ssthresh over the cwnd just before it, from the time series
  (sampled every 100 ms; a reduction is a sample whose ssthresh fell). ns-3 computes it from the
  SACK pipe (departure 3) and, for BIC, keeps W_max = beta x cwnd (departure 11).
- Veno on ns-3 against NewReno on ns-3: identical runs mean Veno's congestion avoidance never
  acts (departure 6).
- BBR in the simulator without its ACK-aggregation allowance (`extra_acked_gain = 0`), beside
  ns-3's BBR, whose allowance stays near one ACK's worth (departure 10).
- BIC without fast convergence on both engines: the gap that remains without ns-3's W_max rule.
- Illinois and YeAH: the window slow start leaves (its peak, the window at 5 s) and what happens
  after (the window at 30 s, reductions after 5 s) on both engines, and YeAH in the simulator
  with ns-3's slow-mode test (a huge `phi`: ns-3 computes 1 / phi in integers, 0).

    python scripts/ns3_departures.py [--quick]
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ns3_comparison import cases  # noqa: E402

from tcplab import run  # noqa: E402


def reduction_ratios(result) -> list[float]:
    """ssthresh after each reduction over cwnd in the sample before it, over all flows."""
    ratios = []
    for _, flow in result.timeseries.groupby("flow_id"):
        cwnd, ssthresh = flow["cwnd_bytes"].to_numpy(), flow["ssthresh_bytes"].to_numpy()
        for i in range(1, len(flow)):
            before = ssthresh[i - 1] if np.isfinite(ssthresh[i - 1]) else np.inf
            if np.isfinite(ssthresh[i]) and ssthresh[i] < before and cwnd[i - 1] > 0:
                ratios.append(ssthresh[i] / cwnd[i - 1])
    return ratios


def summary(result) -> str:
    tcp = result.flows
    return (f"goodput {tcp['goodput_bps'].sum() / 1e6:7.3f} Mb/s, RTT {tcp['rtt_mean_ms'].mean():7.2f} ms, "
            f"retransmitted {int(tcp['retransmitted_segments'].sum())}")


def window_summary(result) -> str:
    """Median cwnd after the first 5 s and the share of samples in recovery."""
    series = result.timeseries[result.timeseries["time_s"] > 5]
    return (f"median cwnd {series['cwnd_bytes'].median() / 1e3:6.1f} KB, in recovery "
            f"{(series['state'] == 'recovery').mean():.0%} of samples")


def after_slow_start(result) -> str:
    """Per flow: the largest cwnd in the first 5 s, cwnd at 5 s and at the end (KB), and the
    reductions (samples whose ssthresh fell) after 5 s."""
    parts = []
    for flow_id, flow in result.timeseries.groupby("flow_id"):
        early, late = flow[flow["time_s"] <= 5], flow[flow["time_s"] > 5]
        ssthresh = late["ssthresh_bytes"].to_numpy()
        falls = int(np.sum(np.isfinite(ssthresh[1:]) & (ssthresh[1:] < ssthresh[:-1])))
        parts.append(f"flow {flow_id}: peak {early['cwnd_bytes'].max() / 1e3:.0f}, at 5 s "
                     f"{early['cwnd_bytes'].iloc[-1] / 1e3:.0f}, end {flow['cwnd_bytes'].iloc[-1] / 1e3:.0f} KB, "
                     f"{falls} reductions after 5 s")
    return "; ".join(parts)


def loss_delay_evidence(found: dict) -> None:
    print("Illinois and YeAH after slow start:")
    for name in ("illinois-1bdp", "illinois-8bdp", "yeah-8bdp"):
        for backend in ("simulator", "ns3"):
            result = run(found[name], backend=backend)
            print(f"  {name:14} {backend:9} {summary(result)}\n      {after_slow_start(result)}")
    mimic = with_params(found["yeah-8bdp"], phi=1000)
    print(f"  yeah-8bdp, simulator with phi = 1000: {summary(run(mimic))}")


def with_params(scenario: dict, **params) -> dict:
    changed = copy.deepcopy(scenario)
    for flow in changed["flows"]:
        flow["params"] = {**flow.get("params", {}), **params}
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the comparison's 5-second cases")
    args = parser.parse_args()
    found = {name: scenario for name, (scenario, _) in cases(args.quick).items()}

    print("ssthresh / cwnd at each reduction (median, n), simulator vs ns-3:")
    for name in ("newreno-loss0.5pct", "highspeed-8bdp", "westwood-8bdp", "bic-8bdp", "bic-1bdp"):
        ratios = {backend: reduction_ratios(run(found[name], backend=backend)) for backend in ("simulator", "ns3")}
        print(f"  {name:20} " + ", ".join(f"{backend} {np.median(r):.2f} (n={len(r)})" if r else f"{backend} -"
                                          for backend, r in ratios.items()))

    print("Veno against NewReno, both on ns-3 (8 BDP):")
    for name in ("veno-8bdp", "newreno-8bdp"):
        print(f"  {name:20} {summary(run(found[name], backend='ns3'))}")

    print("BBR at 1 BDP:")
    simulator, ns3 = run(found["bbr-1bdp"]), run(found["bbr-1bdp"], backend="ns3")
    print(f"  {'simulator':34} {summary(simulator)}; {window_summary(simulator)}")
    print(f"  {'simulator, extra_acked_gain = 0':34} {summary(run(with_params(found['bbr-1bdp'], extra_acked_gain=0.0)))}")
    print(f"  {'ns-3':34} {summary(ns3)}; {window_summary(ns3)}")

    print("BIC without fast convergence (8 BDP):")
    no_convergence = with_params(found["bic-8bdp"], fast_convergence=False)
    for backend in ("simulator", "ns3"):
        print(f"  {backend:20} {summary(run(no_convergence, backend=backend))}")

    loss_delay_evidence(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
