"""The Linux back-end's link emulator: its timing error and its ceiling in packets per second.

    sudo python3 benches/linux_emulator.py [--seconds 10]

Timing error: how late each packet leaves a wire (is written into its receiver's TUN device, or
handed to the next link) after the time the link model gives it, over every packet of a run; at
an idle link (UDP probes, 100 a second) and under load (two cubic flows filling a bottleneck of
50 Mbit/s, then 1 Gbit/s; base RTT 40 ms, 1-BDP drop-tail). For the idle link also the one-way
delay the emulator gave the probes beside the configured one (propagation plus transmission).

Ceiling: four cubic flows on 10 Gbit/s links with 1 ms delays, more than this machine's kernel,
endpoints and emulator can move: the packets the emulator forwarded per second is its ceiling
here, with the endpoints sharing the machine's cores.
"""

from __future__ import annotations

import argparse
import os
import sys

import tcplab


def dumbbell(rate: str, delay: str, flows: str, seconds: float, access: str = "10Gbps") -> dict:
    return {
        "name": "emulator-bench",
        "simulation": {"duration": f"{seconds}s", "sample_interval": "100ms"},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": rate, "delay": delay, "buffer": "1BDP"},
                     "access": {"rate": access, "delay": "1ms", "buffer": "10000p"}},
        "flows": flows,
    }


def timing(label: str, result: tcplab.Result) -> None:
    s = result.summary
    rate = s["emulator_packets_forwarded"] / s["simulated_seconds"]
    print(f"{label:34} lateness p50 {s['emulator_lateness_p50_ms'] * 1e3:7.1f} us  p99 "
          f"{s['emulator_lateness_p99_ms'] * 1e3:7.1f} us  max {s['emulator_lateness_max_ms'] * 1e3:8.1f} us  "
          f"{rate / 1e3:7.1f} k packets/s  realtime {s['emulator_realtime']}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each run (default 10 s)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("needs root: the Linux back-end builds network namespaces", file=sys.stderr)
        return 1
    probes = [{"protocol": "udp", "rate": "160kbps", "packet_size": "200B"}]
    idle = tcplab.run(dumbbell("50Mbps", "18ms", probes, args.seconds, access="1Gbps"), backend="linux")
    timing("idle link (UDP probes)", idle)
    configured_ms = 20.0 + 2 * 200 * 8 / 1e9 * 1e3 + 200 * 8 / 50e6 * 1e3
    probe = idle.flows.iloc[0]
    print(f"{'':34} one-way delay configured {configured_ms:.4f} ms, emulated p50 "
          f"{probe['one_way_delay_p50_ms']:.4f} ms, p95 {probe['one_way_delay_p95_ms']:.4f} ms")
    two_cubic = [{"cc": "cubic", "count": 2}]
    for rate in ("50Mbps", "1Gbps"):
        result = tcplab.run(dumbbell(rate, "18ms", two_cubic, args.seconds), backend="linux")
        timing(f"two cubic flows, {rate} bottleneck", result)
        print(f"{'':34} goodput {result.flows['goodput_bps'].sum() / 1e6:.1f} Mbit/s")
    ceiling = tcplab.run(dumbbell("10Gbps", "1ms", [{"cc": "cubic", "count": 4}], args.seconds), backend="linux")
    timing("ceiling: four cubic flows, 10 Gbit/s", ceiling)
    print(f"{'':34} goodput {ceiling.flows['goodput_bps'].sum() / 1e6:.1f} Mbit/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
