"""The simulator (tcp.profile = "ns2") beside ns-2.35 itself on the cases docs/ns2-backend.md lists:
one-way Reno, NewReno and SACK agents at window_ 20 and 1000 on a drop-tail and a RED+ECN
dumbbell, CUBIC, BIC, Compound, Vegas and Veno on ns-2's Linux agent on the Compound TCP study's
chain, the Active Delay Control paper's 40-flow RED+ECN link at three buffer sizes, and the
study's chain with UDP CBR cross traffic.

Every case runs with seeds 1 to 5 (each draws its own start times, which both engines use, and
seeds ns-2's own random streams): the study's chain is chaotic, a few milliseconds of start
offset move its goodput by tens of percent in both engines. For every case it writes
docs/ns2-backend/<case>/ (seed 1's comparison tables and overlay) and one row of
docs/ns2-backend/comparison.csv: the means over the seeds of total goodput (with its range), drops
on every link, timeouts after a loss and the busiest link's mean queueing delay from each engine,
and whether each mean is within the targets: goodput 5%, drops 15% or 3 packets, timeouts 20% or
3, queueing delay 10% or one packet's time on that link.

    python scripts/ns2_comparison.py            # every case, the lengths in the table below
    python scripts/ns2_comparison.py --quick    # 10-second versions
    python scripts/ns2_comparison.py --case adc-b100
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

from comparison_cases import choose, save_summary

from tcplab import run
from tcplab.compare_backends import comparison_table, link_table, markdown_link_table, markdown_table, overlay_figure
from tcplab.backends.ns2.preflight import LINUX_AGENT_PARAMS
from tcplab.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"goodput": 0.05, "drops": 0.15, "timeouts": 0.20, "queue_delay": 0.10}
# Below these, a relative difference says nothing: counts of a few, delays under a packet time.
DROPS_ABSOLUTE = 3
TIMEOUTS_ABSOLUTE = 3
SEEDS = (1, 2, 3, 4, 5)


def dumbbell(name: str, recovery: str, window_packets: int, queue: str, seconds: int, cc: str = "newreno",
             ecn: bool = False) -> dict:
    """Two flows on a 10 Mbit/s, 20 ms dumbbell with a 50-packet buffer: the ns2 profile's
    1000-byte packets, the window the case names."""
    tcp = {"profile": "ns2", "recovery": recovery, "receive_window": f"{window_packets * 1000}B"}
    if ecn:
        tcp.update({"ecn": True})
    return {
        "name": name,
        "simulation": {"duration": f"{seconds}s", "sample_interval": "100ms", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "buffer": "50p", "queue": queue},
            "access": {"rate": "100Mbps", "delay": "1ms", "buffer": "1000p"},
        },
        "tcp": tcp,
        "flows": [{"cc": cc, "count": 2, "start_spread": "1s", "params": {"reduction": "ns2_slowdown"}}],
    }


RED_ECN = {"kind": "red", "ecn": True, "min_th": "5p", "max_th": "15p"}
def ctcp_chain(name: str, cc: str, window_packets: int, seconds: int) -> dict:
    scenario = load_scenario(ROOT / "scenarios" / "papers" / "ctcp-study" / "chain.toml")
    scenario["name"] = name
    scenario["simulation"]["duration"] = f"{seconds}s"
    scenario["tcp"].update({"receive_window": f"{window_packets * 1000}B"})
    for flow in scenario["flows"]:
        if flow.get("protocol") != "udp":
            flow["cc"] = cc
            # Start times drawn from the seed within 5 ms (the study gives none): the chain is
            # chaotic, so only a mean over several draws compares the engines.
            flow["start_spread"] = "5ms"
            if cc == "newreno":
                flow["params"] = {"reduction": "ns2_slowdown"}
    if cc != "newreno":
        # As ns-2's Linux agent runs: window_ is its cwnd clamp and first ssthresh, the timer
        # restarts on every ACK, its scoreboard (RACK here) finds lost retransmissions, and it
        # has no receive window (docs/ns2-backend.md).
        scenario["tcp"].update({"recovery": "sack", "rack": True, "rto_restart": "every_ack",
                                "cwnd_clamp": window_packets, "initial_ssthresh": window_packets,
                                "receive_window": f"{2 * window_packets * 1000}B"})
        for flow in scenario["flows"]:
            if flow.get("protocol") != "udp" and LINUX_AGENT_PARAMS[cc]:
                flow["params"] = dict(LINUX_AGENT_PARAMS[cc])
    return scenario


def adc(name: str, buffer_packets: int, seconds: int) -> dict:
    scenario = load_scenario(ROOT / "scenarios" / "papers" / "adc" / "many-flows.toml")
    scenario["name"] = name
    scenario["simulation"]["duration"] = f"{seconds}s"
    scenario["topology"]["bottleneck"]["buffer"] = f"{buffer_packets}p"
    return scenario


def cases(quick: bool) -> dict[str, dict]:
    length = 10 if quick else 60
    found = {}
    for recovery, agent in (("reno", "reno"), ("newreno", "newreno"), ("sack", "sack")):
        for window in (20, 1000):
            name = f"{agent}-w{window}-droptail"
            found[name] = dumbbell(name, recovery, window, "droptail", length)
    for window in (20, 1000):
        name = f"newreno-w{window}-red-ecn"
        found[name] = dumbbell(name, "newreno", window, RED_ECN, length, ecn=True)
    for cc in LINUX_AGENT_PARAMS:
        name = f"linux-{cc}-chain-w1000"
        found[name] = ctcp_chain(name, cc, 1000, 10 if quick else 30)
    for buffer in (100, 500, 1500):
        name = f"adc-b{buffer}"
        found[name] = adc(name, buffer, 20 if quick else 100)
    found["chain-cbr-newreno-w20"] = ctcp_chain("chain-cbr-newreno-w20", "newreno", 20, 10 if quick else 100)
    return found


def within(simulator: float, other: float, target: float, absolute: float = 0.0) -> bool:
    if abs(other - simulator) <= absolute:
        return True
    return simulator != 0 and abs(other / simulator - 1) <= target


def measure(results: dict, table: pd.DataFrame) -> dict:
    """One seed's totals from each engine."""
    row = {}
    links = {backend: result.links for backend, result in results.items()}
    busiest = links["simulator"].sort_values("utilization", ascending=False).index[0]
    packet_ms = 1040 * 8 / links["simulator"].loc[busiest, "rate_bps"] * 1000
    for backend in ("simulator", "ns2"):
        row[f"goodput_mbps_{backend}"] = table.iloc[-1][f"goodput_mbps_{backend}"]
        row[f"drops_{backend}"] = float(links[backend]["queue_drops"].sum())
        # ns-2 counts timeouts after a loss only (nrexmit_): the simulator's matching column.
        row[f"timeouts_{backend}"] = float(results[backend].flows["timeouts_after_loss"].sum())
        row[f"queue_delay_ms_{backend}"] = float(links[backend].loc[busiest, "queue_delay_mean_ms"])
        row[f"wall_s_{backend}"] = results[backend].summary.get("engine_wall_seconds", float("nan"))
    row["packet_time_ms"] = packet_ms
    return row


def summarise(name: str, per_seed: list[dict]) -> dict:
    frame = pd.DataFrame(per_seed)
    row = {"case": name, "seeds": len(frame)}
    row.update(frame.mean().to_dict())
    for backend in ("simulator", "ns2"):
        row[f"goodput_mbps_min_{backend}"] = frame[f"goodput_mbps_{backend}"].min()
        row[f"goodput_mbps_max_{backend}"] = frame[f"goodput_mbps_{backend}"].max()
    row["goodput_ok"] = within(row["goodput_mbps_simulator"], row["goodput_mbps_ns2"], TARGETS["goodput"])
    row["drops_ok"] = within(row["drops_simulator"], row["drops_ns2"], TARGETS["drops"], DROPS_ABSOLUTE)
    row["timeouts_ok"] = within(row["timeouts_simulator"], row["timeouts_ns2"], TARGETS["timeouts"], TIMEOUTS_ABSOLUTE)
    row["queue_delay_ok"] = within(row["queue_delay_ms_simulator"], row["queue_delay_ms_ns2"], TARGETS["queue_delay"],
                                   row["packet_time_ms"])
    return row


def main() -> int:
    choice = choose(__doc__, "10-second versions of every case", ROOT / "docs" / "ns2-backend", cases)
    if choice is None:
        return 2
    args, everything, chosen = choice
    rows = []
    for name in chosen:
        started = time.monotonic()
        per_seed = []
        for seed in SEEDS:
            scenario = dict(everything[name])
            scenario["simulation"] = {**scenario["simulation"], "seed": seed}
            simulation_started = time.monotonic()
            results = {"simulator": run(scenario)}
            simulator_wall = time.monotonic() - simulation_started
            results["ns2"] = run(scenario, backend="ns2")
            table = comparison_table(results)
            row = measure(results, table)
            row["wall_s_simulator"] = simulator_wall
            per_seed.append(row)
            if seed == SEEDS[0]:
                case = args.out / name
                case.mkdir(parents=True, exist_ok=True)
                table.to_csv(case / "comparison.csv", index=False)
                links = link_table(results)
                links.to_csv(case / "links.csv", index=False)
                (case / "comparison.md").write_text(
                    markdown_table(table) + "\n\n" + markdown_link_table(links, "ns2") + "\n", encoding="utf-8")
                overlay_figure(results).savefig(case / "overlay.png", dpi=80)
        row = summarise(name, per_seed)
        rows.append(row)
        verdict = ", ".join(f"{k.removesuffix('_ok')} {'ok' if row[k] else 'OUT'}" for k in row if k.endswith("_ok"))
        print(f"{name:28} goodput {row['goodput_mbps_simulator']:8.3f} / {row['goodput_mbps_ns2']:8.3f} Mb/s, "
              f"drops {row['drops_simulator']:7.1f} / {row['drops_ns2']:7.1f}, timeouts {row['timeouts_simulator']:5.1f} / "
              f"{row['timeouts_ns2']:5.1f}, queue {row['queue_delay_ms_simulator']:7.2f} / {row['queue_delay_ms_ns2']:7.2f} ms; "
              f"{verdict}; {time.monotonic() - started:.0f} s for {len(SEEDS)} seeds", flush=True)
    summary, _ = save_summary(pd.DataFrame(rows), args, chosen)
    print(f"written: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
