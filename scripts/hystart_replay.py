"""Replays Linux CUBIC's HyStart over a TCP sender's capture, to see which rule ends slow start
and where each round begins (docs/linux-fidelity.md, "The slow-start exit").

    python3 scripts/hystart_replay.py CAPTURE SENDER_PORT [--rounds-from-low-window]

CAPTURE is a pcap or pcapng taken at the sender (send times of the data, arrival times of the
ACKs), read with tshark. RTT samples are those Linux gives CUBIC: the newest segment an ACK
newly covers, never a retransmitted one. cwnd is inferred as in slow start with one ACK per
segment counted (10 + segments acknowledged), so the replay holds until the first loss. By
default rounds are counted from the first ACK (Linux 6.13 and the stable kernels after it);
--rounds-from-low-window counts them only from cwnd 16, as kernels before that fix did.
Thresholds are Linux's: ACK train within 2 ms spanning (min RTT + 1 ms) / 2 for an unpaced flow;
delay when a round's minimum over its first 8 samples and on exceeds the minimum RTT plus
clamp(min RTT / 8, 4 ms, 16 ms).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

LOW_WINDOW = 16
INITIAL_WINDOW = 10
MIN_SAMPLES = 8
ACK_DELTA_S = 0.002


def packets(capture: str) -> list[tuple[float, int, int, int, int, int]]:
    fields = ["frame.time_epoch", "tcp.srcport", "tcp.dstport", "tcp.seq", "tcp.len", "tcp.ack"]
    command = ["tshark", "-r", capture, "-T", "fields"] + [arg for f in fields for arg in ("-e", f)]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        sys.exit(f"error: tshark could not run: {error}")
    out = done.stdout
    # A capture whose writer was stopped mid-packet ends "cut short": tshark says so and fails,
    # after printing every whole packet, which is all the replay needs.
    if done.returncode != 0 and not out:
        sys.exit(f"error: tshark could not read {capture}: {done.stderr.strip()}")
    rows = []
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 6 and all(parts):
            rows.append((float(parts[0]), *map(int, parts[1:])))
    return rows


def replay(rows: list, port: int, from_low_window: bool) -> None:
    sent: dict[int, float] = {}  # segment end -> first send time
    retransmitted: set[int] = set()
    snd_nxt, snd_una, mss = 0, 1, 0
    delay_min = None
    round_ = None
    t0 = rows[0][0] if rows else 0.0
    for time, source, destination, seq, length, ack in rows:
        t = time - t0
        if source == port and length > 0:
            mss = max(mss, length)
            if seq + length <= snd_nxt:
                retransmitted.add(seq + length)
            else:
                sent[seq + length], snd_nxt = t, seq + length
            continue
        if destination != port or ack <= snd_una:
            continue
        covered = [end for end in sent if end <= ack]
        newest = max(covered, default=None)
        rtt_ms = (t - sent[newest]) * 1000 if newest is not None and newest not in retransmitted else None
        for end in covered:
            del sent[end]
        snd_una = ack
        if rtt_ms is None:
            continue
        delay_min = rtt_ms if delay_min is None else min(delay_min, rtt_ms)
        cwnd = INITIAL_WINDOW + (snd_una - 1) // max(mss, 1)
        if from_low_window and cwnd < LOW_WINDOW:
            continue
        if round_ is None or snd_una > round_["end_seq"]:
            round_ = {"start": t, "last_ack": t, "end_seq": snd_nxt, "min": float("inf"), "samples": []}
            print(f"round at {t * 1000:7.1f} ms, ends past byte {snd_nxt}")
        if cwnd < LOW_WINDOW:
            continue
        if t - round_["last_ack"] <= ACK_DELTA_S:
            round_["last_ack"] = t
            threshold = (delay_min + 1.0) / 2
            if (t - round_["start"]) * 1000 > threshold:
                print(f"ACK train at {t * 1000:.1f} ms: {(t - round_['start']) * 1000:.1f} ms into the round "
                      f"(threshold {threshold:.1f} ms), cwnd about {cwnd} segments")
                return
        round_["min"] = min(round_["min"], rtt_ms)
        if len(round_["samples"]) < MIN_SAMPLES:
            round_["samples"].append(rtt_ms)
            if len(round_["samples"]) == MIN_SAMPLES:
                print(f"  first {MIN_SAMPLES} RTT samples {min(round_['samples']):.1f}-{max(round_['samples']):.1f} ms")
            continue
        threshold = delay_min + min(max(delay_min / 8, 4.0), 16.0)
        if round_["min"] > threshold:
            print(f"delay at {t * 1000:.1f} ms: round minimum {round_['min']:.1f} > {threshold:.1f} ms, "
                  f"cwnd about {cwnd} segments")
            return
    print("no HyStart exit in the capture")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("capture")
    parser.add_argument("port", type=int, help="the sender's TCP port")
    parser.add_argument("--rounds-from-low-window", action="store_true",
                        help="count rounds only from cwnd 16 (kernels before Linux 6.13's fix)")
    args = parser.parse_args()
    replay(packets(args.capture), args.port, args.rounds_from_low_window)
    return 0


if __name__ == "__main__":
    sys.exit(main())
