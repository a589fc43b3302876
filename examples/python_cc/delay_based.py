"""A delay-based controller in the manner of TCP Vegas (Brakmo and Peterson, JSAC 1995), written
for clarity rather than fidelity to Linux's tcp_vegas.c (the built-in `vegas` follows that):

once per round trip, the segments this flow keeps queued at the bottleneck are estimated as
    queued = cwnd x (1 - base_rtt / rtt)        (Vegas' "diff", in segments)
with base_rtt the smallest RTT seen and rtt the smallest in the last round. Below `alpha` segments
the window grows by one segment, above `beta` it shrinks by one; in between it holds. Slow start
doubles the window per round until `gamma` segments are queued, then drops it to what the path holds
without a queue, window x base_rtt / rtt (plus one). Losses halve the window as Reno.

    cc = "python:delay_based:DelayBased"     # with examples/python_cc on PYTHONPATH
"""

import tcplab


class DelayBased(tcplab.CongestionControl):
    def __init__(self, connection, alpha=2, beta=4, gamma=1):
        super().__init__(connection)
        if not 0 <= alpha <= beta:
            raise ValueError(f"alpha = {alpha} and beta = {beta}: need 0 <= alpha <= beta (segments)")
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.window = connection.initial_window_segments  # segments
        self.threshold = None  # segments; None while unbounded
        self.base_rtt = None  # ns, smallest RTT of the connection
        self.round_min_rtt = None  # ns, smallest RTT of the current round
        self.round_end = 0  # sequence number that ends the current round
        self._publish()

    def on_ack(self, ack):
        if ack.rtt_sample is not None:
            rtt = ack.rtt_sample
            self.base_rtt = rtt if self.base_rtt is None else min(self.base_rtt, rtt)
            self.round_min_rtt = rtt if self.round_min_rtt is None else min(self.round_min_rtt, rtt)
        if ack.snd_una < self.round_end or self.round_min_rtt is None:
            return
        # One decision per round trip, on the round's smallest RTT.
        queued = self.window * (1 - self.base_rtt / self.round_min_rtt)
        if not ack.may_raise_cwnd:
            pass
        elif self.threshold is None or self.window < self.threshold:
            if queued > self.gamma:
                # Leave slow start: the queue is building. The window ran a round ahead of the
                # measurement, so come back to what the path holds: window x base_rtt / rtt.
                self.window = max(int(self.window * self.base_rtt / self.round_min_rtt) + 1, 2)
                self.threshold = self.window
            else:
                self.window *= 2
        elif queued < self.alpha:
            self.window += 1
        elif queued > self.beta:
            self.window = max(self.window - 1, 2)
        self.round_end = ack.snd_nxt
        self.round_min_rtt = None
        self._publish()

    def on_congestion_event(self, event):
        self.threshold = max(self.window // 2, 2)
        self.window = 1 if event.kind == "timeout" else self.threshold
        self.events.append(f"delay_based_{event.kind}")
        self._publish()

    def on_recovery_exit(self, now):
        self.window = self.threshold
        self._publish()

    def _publish(self):
        self.cwnd = self.window * self.mss
        self.ssthresh = None if self.threshold is None else self.threshold * self.mss
        self.state = "slow_start" if self.threshold is None or self.window < self.threshold else "avoidance"
