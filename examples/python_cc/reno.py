"""TCP Reno as Linux implements it, in Python: the same rules, in the same integer arithmetic, as
tcplab's built-in `reno` (crates/tcplab-core/src/cc/reno.rs and cc/window.rs), so the two give the
same results byte for byte.

    cc = "python:reno:Reno"      # with examples/python_cc on PYTHONPATH

- slow start: one segment per acked segment, up to ssthresh; what is left goes to avoidance;
- congestion avoidance: one segment per cwnd acked segments, counted in a credit;
- on loss: ssthresh = max(cwnd / 2, 2) segments; cwnd = ssthresh, or 1 segment after a timeout;
- no growth while the flow does not fill its window (Linux's tcp_is_cwnd_limited).
"""

import tcplab

# Linux's TCP_INFINITE_SSTHRESH: ssthresh before the first loss.
INFINITE_SSTHRESH = 0x7FFF_FFFF


class Reno(tcplab.CongestionControl):
    def __init__(self, connection, freeze_when_not_cwnd_limited=True):
        super().__init__(connection)
        self.freeze_when_not_cwnd_limited = freeze_when_not_cwnd_limited
        self.window = connection.initial_window_segments  # segments
        self.threshold = INFINITE_SSTHRESH  # segments
        self.credit = 0  # acked segments towards the next +1 (Linux snd_cwnd_cnt)
        self._publish()

    def on_ack(self, ack):
        if not ack.may_raise_cwnd or (self.freeze_when_not_cwnd_limited and not ack.cwnd_limited):
            return
        acked = ack.acked_segments
        if self.window < self.threshold:
            grown = min(self.window + acked, self.threshold)
            acked -= grown - self.window
            self.window = grown
            if acked == 0:
                self._publish()
                return
        self._additive_increase(self.window, acked)
        self._publish()

    def _additive_increase(self, per, acked):
        per = max(per, 1)
        if self.credit >= per:
            self.credit = 0
            self.window += 1
        self.credit += acked
        if self.credit >= per:
            delta = self.credit // per
            self.credit -= delta * per
            self.window += delta

    def on_congestion_event(self, event):
        self.threshold = max(self.window // 2, 2)
        self.credit = 0
        self.window = 1 if event.kind == "timeout" else self.threshold
        self._publish()

    def on_recovery_exit(self, now):
        self.window = self.threshold
        self._publish()

    def _publish(self):
        self.cwnd = self.window * self.mss
        self.ssthresh = None if self.threshold >= INFINITE_SSTHRESH else self.threshold * self.mss
        self.state = "slow_start" if self.window < self.threshold else "congestion_avoidance"
