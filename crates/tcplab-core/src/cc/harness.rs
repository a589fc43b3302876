//! A scripted stand-in for the TCP sender, for testing algorithms through their trait alone:
//! send a window, let time pass, acknowledge n segments, lose one, time out, mark ECN.
//!
//! It keeps just enough sender state (snd_una, snd_nxt, a fixed RTT, the recovery point) to build
//! realistic [`AckEvent`]s and [`CongestionEvent`]s; loss recovery itself is not modelled (the
//! real sender is tested separately). Every algorithm file's tests and the cross-algorithm
//! property tests use it.

use super::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo};
use crate::time::{SimDuration, SimTime};

/// The most ACKs one simulated round trip takes (see `round_trip`).
pub const MAX_ACKS_PER_ROUND: u64 = 4096;

pub struct FakeSender {
    pub cc: Box<dyn CongestionControl>,
    pub mss: u64,
    pub now: SimTime,
    /// RTT reported with every acknowledged segment.
    pub rtt: SimDuration,
    pub min_rtt: SimDuration,
    /// Bytes acknowledged and bytes sent.
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub in_recovery: bool,
    recover: u64,
    /// Reported as the ACK's cwnd-limited flag (Linux's notion).
    pub cwnd_limited: bool,
    /// Reported as the ACK's ECN-Echo flag (DCTCP counts the data such ACKs acknowledge).
    pub ece: bool,
}

impl FakeSender {
    pub fn new(
        name: &str,
        params: &serde_json::Value,
        mss: u64,
        initial_window_segments: u32,
        rtt: SimDuration,
    ) -> Self {
        Self::with_info(name, params, ConnectionInfo::new(mss, initial_window_segments, 1), rtt)
    }

    /// A fake sender whose algorithm gets `info` (an initial ssthresh, a cwnd clamp).
    pub fn with_info(name: &str, params: &serde_json::Value, info: ConnectionInfo, rtt: SimDuration) -> Self {
        let mss = info.mss;
        let cc = super::create(name, params, info).unwrap_or_else(|e| panic!("cannot create {name}: {e}"));
        Self {
            cc,
            mss,
            now: 0,
            rtt,
            min_rtt: rtt,
            snd_una: 0,
            snd_nxt: 0,
            in_recovery: false,
            recover: 0,
            cwnd_limited: true,
            ece: false,
        }
    }

    pub fn cwnd_segments(&self) -> f64 {
        self.cc.cwnd() as f64 / self.mss as f64
    }

    pub fn ssthresh_segments(&self) -> f64 {
        self.cc.ssthresh() as f64 / self.mss as f64
    }

    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Sends new segments until the window is full, as one burst; returns how many.
    pub fn fill_window(&mut self) -> u64 {
        let room = self.cc.cwnd().saturating_sub(self.in_flight());
        let segments = room / self.mss;
        if segments > 0 {
            let before = self.in_flight();
            self.snd_nxt += segments * self.mss;
            self.cc.on_packet_sent(self.now, segments * self.mss, before);
        }
        segments
    }

    pub fn advance(&mut self, duration: SimDuration) {
        self.now += duration;
    }

    /// One ACK covering `segments` more segments (a stretch ACK when > 1).
    pub fn ack(&mut self, segments: u64) {
        let acked = (segments * self.mss).min(self.in_flight());
        let before = self.in_flight();
        self.snd_una += acked;
        // As in the real sender, the ACK that ends recovery is still reported as in recovery.
        let was_in_recovery = self.in_recovery;
        if self.in_recovery && self.snd_una >= self.recover {
            self.in_recovery = false;
            self.cc.on_recovery_exit(self.now);
        }
        let event = AckEvent {
            now: self.now,
            acked_bytes: acked,
            acked_segments: acked.div_ceil(self.mss) as u32,
            rtt_sample: Some(self.rtt),
            srtt: self.rtt,
            min_rtt: self.min_rtt.min(self.rtt),
            // A symmetric path: the forward half of the RTT.
            one_way_delay: Some(self.rtt / 2),
            bytes_in_flight_before: before,
            bytes_in_flight: self.in_flight(),
            in_recovery: was_in_recovery,
            cwnd_limited: self.cwnd_limited,
            app_limited: !self.cwnd_limited,
            snd_una_advanced: acked > 0,
            // ACK-clocked: the window in flight before this ACK was delivered in one RTT.
            delivery_rate: (self.rtt > 0 && before > 0)
                .then(|| (before as u128 * 8 * crate::time::NANOS_PER_SEC as u128 / self.rtt as u128) as u64),
            delivery_rate_app_limited: !self.cwnd_limited,
            delivered: self.snd_una,
            prior_delivered: self.snd_una.saturating_sub(before),
            newly_lost_segments: 0,
            tx_in_flight: before,
            lost_since_sent: 0,
            ece: self.ece,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            // Not paced unless the algorithm paces; no internal rate is modelled here.
            paced: self.cc.pacing_rate().is_some(),
            pacing_rate: self.cc.pacing_rate().unwrap_or(0),
        };
        self.min_rtt = event.min_rtt;
        self.cc.on_ack(&event);
    }

    /// One ACK-clocked round trip: wait one RTT, then acknowledge what was in flight in ACKs of
    /// `segments_per_ack` segments (2 models delayed ACKs), sending new segments as each ACK opens
    /// the window, so the flow never goes idle (an idle start would shift CUBIC's epoch).
    /// Huge windows (an algorithm without a bottleneck grows without bound) are acknowledged in
    /// at most `MAX_ACKS_PER_ROUND` larger ACKs, so that a round stays cheap.
    pub fn round_trip(&mut self, segments_per_ack: u64) {
        if self.in_flight() == 0 {
            self.fill_window();
        }
        self.advance(self.rtt);
        let segments_per_ack = segments_per_ack.max(self.in_flight().div_ceil(self.mss).div_ceil(MAX_ACKS_PER_ROUND));
        let round_end = self.snd_nxt;
        while self.snd_una < round_end {
            let remaining = (round_end - self.snd_una).div_ceil(self.mss);
            self.ack(segments_per_ack.min(remaining));
            self.fill_window();
        }
    }

    fn congestion(&mut self, kind: CongestionKind) {
        self.cc.on_congestion_event(&CongestionEvent {
            now: self.now,
            kind,
            bytes_in_flight: self.in_flight(),
            snd_nxt: self.snd_nxt,
        });
    }

    /// A loss detected by duplicate ACKs: the algorithm reduces, recovery lasts until everything
    /// sent so far is acknowledged.
    pub fn lose(&mut self) {
        self.congestion(CongestionKind::FastRetransmit);
        self.in_recovery = true;
        self.recover = self.snd_nxt;
    }

    /// A retransmission timeout: everything in flight is considered lost.
    pub fn timeout(&mut self) {
        self.congestion(CongestionKind::Timeout);
        self.in_recovery = false;
        self.snd_una = self.snd_nxt;
    }

    pub fn ecn_echo(&mut self) {
        self.congestion(CongestionKind::Ecn);
    }
}
