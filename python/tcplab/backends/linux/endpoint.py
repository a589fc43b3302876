"""The program at one host of a Linux back-end run: one flow's sender or receiver, with kernel
TCP (or UDP) in the host's network namespace.

Run by the orchestrator as ``python -I endpoint.py CONFIG_JSON`` inside the namespace; it uses
the standard library only, so it starts in a few tens of milliseconds. It prints ``ready`` once
its socket exists, reads the run's time zero (seconds of CLOCK_MONOTONIC, which all namespaces
share) from standard input, runs the flow, and prints one line of JSON with what it measured.

The sender samples ``TCP_INFO`` from its own socket every sample interval (about 14 us a call,
where running ``ss`` costs milliseconds); the receiver counts the bytes its application read at
the same instants. It exits when its parent dies (the orchestrator sets PR_SET_PDEATHSIG) or
when standard input closes.
"""

from __future__ import annotations

import json
import math
import os
import random
import socket
import struct
import sys
import threading
import time

# struct tcp_info (include/uapi/linux/tcp.h) up to tcpi_total_rto_time (Linux 6.7 and later):
# name -> (byte offset, struct format).
TCP_INFO_BYTES = 248
TCP_INFO_FIELDS = {
    "ca_state": (1, "B"),
    "snd_mss": (16, "I"),
    "unacked": (24, "I"),
    "sacked": (28, "I"),
    "lost": (32, "I"),
    "retrans": (36, "I"),
    "rtt_us": (68, "I"),
    "snd_ssthresh": (76, "I"),
    "snd_cwnd": (80, "I"),
    "total_retrans": (100, "I"),
    "min_rtt_us": (148, "I"),
    "data_segs_out": (156, "I"),
    "delivery_rate": (160, "Q"),
    "bytes_sent": (200, "Q"),
    "bytes_retrans": (208, "Q"),
    "total_rto": (240, "H"),
}
# tcp_ca_state: Open, Disorder, CWR, Recovery, Loss. The last three are reductions ("recovery" in
# the simulator's states).
CA_STATES = ("open", "disorder", "cwr", "recovery", "loss")
# The kernel's ssthresh before the first reduction (TCP_INFINITE_SSTHRESH).
INFINITE_SSTHRESH = 0x7FFFFFFF
CHUNK_BYTES = 65536
PR_SET_PDEATHSIG = 1


def tcp_info(sock: socket.socket) -> dict:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_BYTES)
    info = {}
    for name, (offset, fmt) in TCP_INFO_FIELDS.items():
        end = offset + struct.calcsize(fmt)
        # An older kernel returns a shorter struct: its missing fields are unknown, not zero.
        info[name] = struct.unpack_from(fmt, raw, offset)[0] if len(raw) >= end else None
    return info


def window_sample(info: dict) -> dict:
    """A time-series row from TCP_INFO, in the simulator's units (bytes, ms)."""
    mss = info["snd_mss"]
    ssthresh = info["snd_ssthresh"]
    # The kernel's packets_out - (sacked_out + lost_out) + retrans_out: RFC 6675's pipe.
    in_flight = max(info["unacked"] - info["sacked"] - info["lost"], 0) + info["retrans"]
    if info["ca_state"] >= CA_STATES.index("cwr"):
        state = "recovery"
    elif ssthresh >= INFINITE_SSTHRESH or info["snd_cwnd"] < ssthresh:
        state = "slow_start"
    else:
        state = "congestion_avoidance"
    return {
        "cwnd_bytes": info["snd_cwnd"] * mss,
        "ssthresh_bytes": None if ssthresh >= INFINITE_SSTHRESH else ssthresh * mss,
        "srtt_ms": info["rtt_us"] / 1000 if info["rtt_us"] else None,
        "in_flight_bytes": in_flight * mss,
        "state": state,
        "total_rto": info["total_rto"],
        # The latest rate sample, as the simulator's sender keeps it; 0 before the first one.
        "delivery_rate_bps": info["delivery_rate"] * 8 or None,
    }


def sleep_until(deadline: float) -> None:
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.05))


def sample_instants(epoch: float, interval: float, duration: float):
    """The run's sample grid: 0, interval, 2 interval, ... up to the duration, as in the simulator."""
    count = int(math.floor(duration / interval + 1e-9)) + 1
    return [(k * interval, epoch + k * interval) for k in range(count)]


class OnOff:
    """Whether the application is active at run time t: on for on_time, off for off_time,
    repeating from the flow's start (exponential periods with these means when asked)."""

    def __init__(self, config: dict) -> None:
        self.on = config.get("on_time")
        self.off = config.get("off_time")
        self.exponential = config.get("on_off_distribution") == "exponential"
        self.rng = random.Random(config.get("seed", 1))
        self.periods: list[tuple[float, float]] = []

    def active(self, t: float, start: float) -> bool:
        if self.on is None or self.off is None:
            return True
        if not self.exponential:
            return (t - start) % (self.on + self.off) < self.on
        while not self.periods or self.periods[-1][1] < t:
            begin = self.periods[-1][1] + self._draw(self.off) if self.periods else start
            self.periods.append((begin, begin + self._draw(self.on)))
        return any(begin <= t < end for begin, end in self.periods[-2:])

    def _draw(self, mean: float) -> float:
        return self.rng.expovariate(1 / mean) if mean > 0 else 0.0


def tcp_sender(config: dict, epoch: float, sock: socket.socket) -> dict:
    start, end = epoch + config["start"], epoch + min(config["stop"] or config["duration"], config["duration"])
    samples: list[tuple[float, dict]] = []

    def sampler() -> None:
        for t, at in sample_instants(epoch, config["sample_interval"], config["duration"]):
            sleep_until(at)
            if at >= start:
                try:
                    samples.append((t, window_sample(tcp_info(sock))))
                except OSError:
                    return

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    sleep_until(start)
    woke = time.monotonic()
    sock.connect((config["peer"], config["port"]))
    connected = time.monotonic()
    first_write = None
    size, rate = config.get("size"), config.get("rate_bps")
    on_off = OnOff(config)
    chunk = bytes(CHUNK_BYTES)
    written = 0
    sock.settimeout(0.05)
    while time.monotonic() < end and (size is None or written < size):
        now = time.monotonic()
        if not on_off.active(now - epoch, config["start"]):
            time.sleep(0.001)
            continue
        allowed = CHUNK_BYTES if size is None else min(CHUNK_BYTES, size - written)
        if rate:
            # An application writing at `rate`: never ahead of rate x time since the start.
            due = rate * (now - start) / 8 - written
            if due < 1:
                time.sleep(min(0.001, (1 - due) * 8 / rate))
                continue
            allowed = min(allowed, int(due))
        try:
            sent = sock.send(chunk[:allowed])
        except socket.timeout:
            continue
        if first_write is None and sent:
            first_write = time.monotonic()
        written += sent
    if size is not None and written >= size:
        sock.shutdown(socket.SHUT_WR)
    sleep_until(epoch + config["duration"])
    final = tcp_info(sock)
    # The algorithm the kernel ran, as it names it (tcplab's BPF versions are tcplab_<name>).
    algorithm = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0", 1)[0].decode()
    thread.join(timeout=1)
    abort(sock)
    # How much later than the scenario says the first data went out, the handshake aside (the
    # simulator opens at the start and sends as the handshake ends): the process waking after its
    # start time, and the time from connect() returning to the first write.
    lateness = None if first_write is None else (woke - start) + (first_write - connected)
    return {"final": final, "samples": samples, "congestion_control": algorithm, "start_lateness_s": lateness,
            # Run times (s) of the SYN (the call to connect()) and of the first data.
            "connect_s": woke - epoch, "first_write_s": None if first_write is None else first_write - epoch}


def abort(sock: socket.socket) -> None:
    """Closes a connection with a reset (SO_LINGER 0) at the run's end: a graceful close would leave
    an orphan socket retransmitting its unsent data for minutes after the hosts are gone, and an
    orphan keeps its congestion control in use, so a BPF algorithm could not be unregistered."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def sample_bytes_received(config: dict, epoch: float, counted: list) -> list[tuple[float, int]]:
    """A thread that records, at every sample instant, the bytes received so far (``counted[0]``,
    which the receiving loop keeps up to date); returns the list it fills."""
    samples: list[tuple[float, int]] = []

    def sampler() -> None:
        for t, at in sample_instants(epoch, config["sample_interval"], config["duration"]):
            sleep_until(at)
            samples.append((t, counted[0]))

    threading.Thread(target=sampler, daemon=True).start()
    return samples


def tcp_receiver(config: dict, epoch: float, listener: socket.socket) -> dict:
    end = epoch + config["duration"]
    counted = [0, None]  # bytes, time of the last byte
    samples = sample_bytes_received(config, epoch, counted)
    listener.settimeout(0.05)
    connection = None
    while connection is None and time.monotonic() < end:
        try:
            connection, _ = listener.accept()
        except socket.timeout:
            continue
    finished = False
    if connection is not None:
        connection.settimeout(0.05)
        buffer = bytearray(CHUNK_BYTES)
        while time.monotonic() < end:
            try:
                n = connection.recv_into(buffer)
            except socket.timeout:
                continue
            now = time.monotonic() - epoch
            if n == 0:
                finished = True
                break
            counted[0] += n
            counted[1] = now
        abort(connection)
    sleep_until(end + 0.01)
    return {"bytes": counted[0], "last_byte_s": counted[1], "finished": finished, "samples": samples}


def udp_sender(config: dict, epoch: float, sock: socket.socket) -> dict:
    start, end = epoch + config["start"], epoch + min(config["stop"] or config["duration"], config["duration"])
    # The datagram's size on the wire, as the simulator counts it: 20 bytes IP, 8 UDP.
    payload = bytes(max(config["packet_size"] - 28, 1))
    interval = config["packet_size"] * 8 / config["rate_bps"]
    on_off = OnOff(config)
    sent = 0
    sleep_until(start)
    next_send = start
    while next_send < end:
        sleep_until(next_send)
        if on_off.active(next_send - epoch, config["start"]):
            try:
                sock.sendto(payload, (config["peer"], config["port"]))
                sent += 1
            except OSError:
                pass  # a full socket buffer: the datagram is lost at the sender, as a router would
        next_send += interval
    sleep_until(epoch + config["duration"])
    return {"datagrams_sent": sent}


def udp_receiver(config: dict, epoch: float, sock: socket.socket) -> dict:
    end = epoch + config["duration"]
    counted = [0]  # bytes
    samples = sample_bytes_received(config, epoch, counted)
    sock.settimeout(0.05)
    while time.monotonic() < end:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        counted[0] += len(data)
    sleep_until(end + 0.01)
    return {"bytes": counted[0], "samples": samples}


def open_socket(config: dict) -> socket.socket:
    """The flow's socket, made before time zero so that start-up costs nothing at the start."""
    tcp = config["protocol"] == "tcp"
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM if tcp else socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if config["role"] == "receiver":
        sock.bind(("0.0.0.0", config["port"]))
        if tcp:
            if config.get("receiver_cc"):
                # The accepted connection inherits the listener's algorithm.
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, config["receiver_cc"].encode())
            sock.listen(1)
    elif tcp:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, config["cc"].encode())
    return sock


ROLES = {
    ("tcp", "sender"): tcp_sender,
    ("tcp", "receiver"): tcp_receiver,
    ("udp", "sender"): udp_sender,
    ("udp", "receiver"): udp_receiver,
}


def die_with_parent() -> None:
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def main() -> int:
    die_with_parent()
    config = json.loads(sys.argv[1])
    try:
        sock = open_socket(config)
    except OSError as error:
        print(json.dumps({"error": f"{config['role']} socket: {error}"}), flush=True)
        return 1
    print("ready", flush=True)
    line = sys.stdin.readline()
    if not line:
        return 1  # the orchestrator went away before time zero
    epoch = float(line)
    # Standard input closing later means the orchestrator is gone: stop at once.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(1)), daemon=True).start()
    try:
        report = ROLES[(config["protocol"], config["role"])](config, epoch, sock)
    except OSError as error:
        print(json.dumps({"error": f"{config['role']}: {error}"}), flush=True)
        return 1
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
