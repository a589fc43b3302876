"""tcplab next to the machine's own Linux TCP on the same path (issue 8's comparison, by hand
until the kernel back-end exists): two flows of one algorithm over 50 Mbit/s and a 40 ms base
RTT with a drop-tail buffer of 1 or 8 BDP.

The real path: network namespaces `tlc-snd` and `tlc-rcv` (iperf3 client and server, kernel TCP)
joined through `tlc-mid`, where this script relays Ethernet frames between two veth ends with
AF_PACKET sockets, holding each frame 20 ms (this kernel has no netem). The relay runs at
real-time priority. Frames towards the receiver leave `tlc-mid` through an HTB class at the
bottleneck rate with a bfifo of the buffer's size: the rate is raised by 1514/1500 and the
buffer by the same factor, because the kernel counts the 14-byte Ethernet header and tcplab's
packets are 1500 bytes. TSO, GSO and GRO are off; the sender namespace's default algorithm is
reno, so no pacing state is inherited (each socket sets its own with iperf3 -C).

Measured per run: goodput (iperf3's receiver side, both flows) and the median smoothed RTT over
the flows' samples after the first 5 s (iperf3 reports the kernel's srtt every 100 ms); tcplab's
run of the same scenario gives the same two numbers from its flows table and time series.

    sudo python3 scripts/linux_comparison.py [--quick]

Everything it creates is removed when it ends, fails or is interrupted.
"""

from __future__ import annotations

import argparse
import ctypes
import heapq
import json
import os
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMESPACES = ("tlc-snd", "tlc-mid", "tlc-rcv")
RATE_BPS = 50_000_000
ONE_WAY_DELAY_S = 0.020
BDP_BYTES = RATE_BPS * 2 * ONE_WAY_DELAY_S / 8
ETHERNET_FACTOR = 1514 / 1500
WARM_UP_S = 5.0
CLONE_NEWNET = 0x40000000
# Linux's socket options that let root exceed net.core.wmem_max and rmem_max.
SO_SNDBUFFORCE = 32
SO_RCVBUFFORCE = 33


def sh(*command: str, check: bool = True) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")
    return done.stdout


def in_ns(namespace: str, *command: str, check: bool = True) -> str:
    return sh("ip", "netns", "exec", namespace, *command, check=check)


def clean_up() -> None:
    for namespace in NAMESPACES:
        sh("ip", "netns", "del", namespace, check=False)


def build_path(buffer_bdp: float) -> None:
    clean_up()
    for namespace in NAMESPACES:
        sh("ip", "netns", "add", namespace)
        in_ns(namespace, "ip", "link", "set", "lo", "up")
    sh("ip", "link", "add", "s0", "netns", "tlc-snd", "type", "veth", "peer", "m0", "netns", "tlc-mid")
    sh("ip", "link", "add", "r0", "netns", "tlc-rcv", "type", "veth", "peer", "m1", "netns", "tlc-mid")
    for namespace, device, address in [("tlc-snd", "s0", "10.9.0.1/24"), ("tlc-rcv", "r0", "10.9.0.2/24")]:
        in_ns(namespace, "ip", "addr", "add", address, "dev", device)
    for namespace, device in [("tlc-snd", "s0"), ("tlc-mid", "m0"), ("tlc-mid", "m1"), ("tlc-rcv", "r0")]:
        in_ns(namespace, "ip", "link", "set", device, "up")
        # Checksums computed in software: a relayed frame must carry a complete one.
        in_ns(namespace, "ethtool", "-K", device, "tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off")
    for namespace in ("tlc-snd", "tlc-rcv"):
        in_ns(namespace, "sysctl", "-qw", "net.ipv4.tcp_congestion_control=reno")
        in_ns(namespace, "sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1")
        # Large enough socket buffers for 8 BDP (2 MB) of data in flight.
        in_ns(namespace, "sysctl", "-qw", "net.ipv4.tcp_wmem=4096 131072 16777216")
        in_ns(namespace, "sysctl", "-qw", "net.ipv4.tcp_rmem=4096 131072 16777216")
    rate = int(RATE_BPS * ETHERNET_FACTOR)
    limit = int(buffer_bdp * BDP_BYTES * ETHERNET_FACTOR)
    in_ns("tlc-mid", "tc", "qdisc", "add", "dev", "m1", "root", "handle", "1:", "htb", "default", "10")
    in_ns("tlc-mid", "tc", "class", "add", "dev", "m1", "parent", "1:", "classid", "1:10", "htb",
          "rate", f"{rate}bit", "ceil", f"{rate}bit", "burst", "1514", "cburst", "1514")
    in_ns("tlc-mid", "tc", "qdisc", "add", "dev", "m1", "parent", "1:10", "handle", "10:", "bfifo", "limit", str(limit))


class Relay(threading.Thread):
    """Holds every frame between m0 and m1 for the one-way delay, in the mid namespace."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.lateness: list[float] = []

    def run(self) -> None:
        # A thread may join another namespace on its own (setns(2) affects the calling thread);
        # os.setns needs Python 3.12, so libc's is called.
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open("/run/netns/tlc-mid", os.O_RDONLY)
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns into tlc-mid failed")
        os.close(fd)
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
        except PermissionError:
            pass
        sockets = {}
        for device in ("m0", "m1"):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
            # Frames waiting in the bottleneck's queue count against the sending socket's buffer:
            # with the default (about 92 frames) it, not the bfifo, would set the buffer size.
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
            s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 64 << 20)
            s.bind((device, 0))
            s.setblocking(False)
            sockets[device] = s
        other = {sockets["m0"]: sockets["m1"], sockets["m1"]: sockets["m0"]}
        pending: list[tuple[float, int, bytes, socket.socket]] = []
        count = 0
        while not self.stop.is_set():
            timeout = max(0.0, pending[0][0] - time.monotonic()) if pending else 0.05
            ready, _, _ = select.select(list(other), [], [], timeout)
            now = time.monotonic()
            for s in ready:
                while True:
                    try:
                        frame, address = s.recvfrom(65535)
                    except BlockingIOError:
                        break
                    if address[2] == socket.PACKET_OUTGOING:
                        continue
                    count += 1
                    heapq.heappush(pending, (now + ONE_WAY_DELAY_S, count, frame, other[s]))
            now = time.monotonic()
            while pending and pending[0][0] <= now:
                due, _, frame, out = heapq.heappop(pending)
                self.lateness.append(now - due)
                try:
                    out.send(frame)
                except OSError:
                    pass  # the bottleneck's queue is full: a drop, as on a router


def run_linux(algorithm: str, seconds: int) -> dict:
    server = subprocess.Popen(["ip", "netns", "exec", "tlc-rcv", "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        out = in_ns("tlc-snd", "iperf3", "-c", "10.9.0.2", "-t", str(seconds), "-P", "2", "-C", algorithm,
                    "-i", "0.1", "-J")
    finally:
        server.wait(timeout=30)
    report = json.loads(out)
    srtts = [stream["rtt"] / 1000 for interval in report["intervals"] for stream in interval["streams"]
             if interval["sum"]["start"] >= WARM_UP_S]
    goodput = report["end"]["sum_received"]["bits_per_second"]
    retransmits = report["end"]["sum_sent"].get("retransmits", 0)
    return {"goodput_mbps": goodput / 1e6, "srtt_median_ms": statistics.median(srtts), "retransmits": retransmits}


def run_tcplab(algorithm: str, buffer_bdp: float, seconds: int) -> dict:
    import tcplab

    text = f"""
name = "linux-comparison"
[simulation]
duration = "{seconds}s"
sample_interval = "100ms"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "50Mbps", delay = "18ms", buffer = "{buffer_bdp}BDP" }}
access = {{ rate = "1Gbps", delay = "1ms", buffer = "10000p" }}
[[flows]]
cc = "{algorithm}"
count = 2
"""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scenario.toml"
        path.write_text(text)
        result = tcplab.run(path)
    series = result.timeseries
    srtts = series[series["time_s"] >= WARM_UP_S]["srtt_ms"].dropna()
    flows = result.flows
    return {
        "goodput_mbps": flows["goodput_bps"].sum() / 1e6,
        "srtt_median_ms": float(srtts.median()),
        "retransmits": int(flows["retransmitted_segments"].sum()),
        "timeouts": int(flows["timeouts"].sum()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 s runs (the full runs: 60 s, Reno on 8 BDP 240 s)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "linux-comparison.json")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("needs root: network namespaces and a real-time relay", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    cases = [(a, b) for b in (1, 8) for a in ("cubic", "reno", "bbr")]
    rows = []
    try:
        for algorithm, buffer_bdp in cases:
            seconds = 20 if args.quick else (240 if (algorithm, buffer_bdp) == ("reno", 8) else 60)
            build_path(buffer_bdp)
            relay = Relay()
            relay.start()
            time.sleep(0.3)
            linux = run_linux(algorithm, seconds)
            relay.stop.set()
            relay.join()
            clean_up()
            late = sorted(relay.lateness)
            simulated = run_tcplab(algorithm, buffer_bdp, seconds)
            row = {
                "algorithm": algorithm, "buffer_bdp": buffer_bdp, "seconds": seconds,
                "linux": linux, "tcplab": simulated,
                "relay_lateness_ms": {"p50": 1e3 * late[len(late) // 2], "p99": 1e3 * late[int(len(late) * 0.99)]},
            }
            rows.append(row)
            g = simulated["goodput_mbps"] / linux["goodput_mbps"] - 1
            r = simulated["srtt_median_ms"] / linux["srtt_median_ms"] - 1
            print(f"{algorithm:6} {buffer_bdp} BDP {seconds:4} s: goodput linux {linux['goodput_mbps']:.2f} "
                  f"tcplab {simulated['goodput_mbps']:.2f} Mb/s ({100 * g:+.1f}%), median srtt linux "
                  f"{linux['srtt_median_ms']:.1f} tcplab {simulated['srtt_median_ms']:.1f} ms ({100 * r:+.1f}%), "
                  f"relay late p50 {row['relay_lateness_ms']['p50']:.3f} p99 {row['relay_lateness_ms']['p99']:.3f} ms",
                  flush=True)
    finally:
        clean_up()
    args.out.write_text(json.dumps({"kernel": os.uname().release, "rows": rows}, indent=2) + "\n")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
