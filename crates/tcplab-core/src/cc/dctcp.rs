//! `dctcp`: Data Center TCP (RFC 8257; Alizadeh et al., SIGCOMM 2010) as Linux's tcp_dctcp.c
//! implements it, on Reno growth.
//!
//! - The sender keeps alpha, an estimate of the fraction of its data that met a congested queue
//!   (RFC 8257 section 3.3). Once per observation window (it ends when the cumulative ACK reaches
//!   the snd_nxt recorded when the window began, tcp_dctcp.c `dctcp_update_alpha` and
//!   `dctcp_reset`), F = segments acknowledged by ACKs carrying ECE / segments acknowledged, and
//!   alpha = (1 - g) alpha + g F with g = 2^-shift_g (Linux's `dctcp_shift_g` = 4, g = 1/16).
//! - Alpha starts at 1 (Linux `dctcp_alpha_on_init` = DCTCP_MAX_ALPHA = 1024/1024), so the first
//!   ECN reaction halves as RFC 3168 would.
//! - On ECN-Echo (once per window, the sender's job) ssthresh = cwnd (1 - alpha / 2), at least 2
//!   segments (`dctcp_ssthresh`), and cwnd = ssthresh.
//! - On loss Linux halves: `dctcp_react_to_loss` sets ssthresh = max(cwnd / 2, 2) on entering fast
//!   recovery (`dctcp_state`) and at a retransmission timeout (`CA_EVENT_LOSS`), overriding the
//!   alpha-based ssthresh (RFC 8257 section 3.4: react to loss as conventional TCP).
//! - Growth is Reno's (`tcp_reno_cong_avoid`), frozen while not cwnd-limited. Undo restores the
//!   window before the reduction (`dctcp_cwnd_undo`).
//!
//! Arithmetic: Linux keeps alpha in 1024ths and the update subtracts alpha >> shift_g, or all of
//! alpha when that is 0, then adds (F_ce << (10 - shift_g)) / F_total, capped at 1024; ssthresh is
//! cwnd - (cwnd alpha >> 11). `arithmetic = "float"` uses real numbers instead, as ns-3 3.44's
//! TcpDctcp (tcp-dctcp.cc `PktsAcked`, `GetSsThresh`).
//!
//! ECN: the algorithm declares that it needs ECN with the DCTCP echo (RFC 8257 section 3.2: ECE
//! on an ACK exactly while the last data segment was CE); the flow builder turns both on
//! (`CongestionControl::required_ecn`), as Linux negotiates ECN for dctcp
//! (TCP_CONG_NEEDS_ECN) whatever the `tcp_ecn` sysctl says.
//!
//! Where the order differs from Linux: the sender reports an ACK's ECN-Echo (the reduction)
//! before the ACK itself, as ns-3 does; Linux's `tcp_ack` updates alpha (`tcp_in_ack_event`)
//! before `tcp_fastretrans_alert` enters CWR. A reduction on the ACK that also closes an
//! observation window therefore uses alpha from before that window's update here (a difference of
//! at most g |F - alpha|).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    EcnEcho, ParamKind, ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};

/// Linux's DCTCP_MAX_ALPHA: alpha = 1 in its fixed point.
pub const ALPHA_ONE: u32 = 1024;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DctcpConfig {
    /// g = 2^-shift_g, the EWMA gain of alpha.
    pub shift_g: u32,
    /// Alpha when the connection starts, as a fraction (Linux: 1024/1024).
    pub alpha_on_init: f64,
    pub arithmetic: Arithmetic,
    pub loss_response: LossResponse,
    pub freeze_when_not_cwnd_limited: bool,
}

/// How alpha and the reduction are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arithmetic {
    /// Linux's fixed point: alpha in 1024ths, shifts and integer divisions.
    Linux,
    /// Real numbers, as ns-3's TcpDctcp (the reduction is rounded down to whole segments).
    Float,
}

/// What a loss (fast retransmit or timeout) does to ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossResponse {
    /// ssthresh = max(cwnd / 2, 2), Linux's `dctcp_react_to_loss` (RFC 8257 section 3.4).
    Halve,
    /// ssthresh = cwnd (1 - alpha / 2), the ECN reduction, as ns-3 3.44's `GetSsThresh` does for
    /// every reduction.
    Alpha,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        Self {
            shift_g: 4,
            alpha_on_init: 1.0,
            arithmetic: Arithmetic::Linux,
            loss_response: LossResponse::Halve,
            freeze_when_not_cwnd_limited: true,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "shift_g",
        kind: ParamKind::Integer { min: 0, max: 10 },
        unit: "",
        description: "g = 2^-shift_g, the EWMA gain of alpha (Linux dctcp_shift_g, allowed 0 to 10)",
    },
    ParamSpec {
        name: "alpha_on_init",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "fraction",
        description: "alpha when the connection starts (Linux dctcp_alpha_on_init 1024/1024)",
    },
    ParamSpec {
        name: "arithmetic",
        kind: ParamKind::Choice { allowed: &["linux", "float"] },
        unit: "",
        description: "alpha in Linux's 1024ths with its shifts, or in real numbers (ns-3)",
    },
    ParamSpec {
        name: "loss_response",
        kind: ParamKind::Choice { allowed: &["halve", "alpha"] },
        unit: "",
        description: "on loss: halve (Linux dctcp_react_to_loss) or reduce by alpha / 2 as on ECN (ns-3 3.44)",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "dctcp",
    summary: "Data Center TCP: cwnd cut by alpha/2, alpha the EWMA of the ECN-marked fraction (needs ECN)",
    source: "RFC 8257; Linux net/ipv4/tcp_dctcp.c",
    params: PARAMS,
    defaults: defaults_of::<DctcpConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: DctcpConfig = parse_params("dctcp", PARAMS, params)?;
        Ok(Box::new(Dctcp::new(config, info)))
    },
};

/// Alpha in the configured arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Alpha {
    /// 1024ths, 0 to 1024.
    Fixed(u32),
    Float(f64),
}

/// Linux's update at the end of an observation window: alpha loses alpha >> shift (all of it when
/// that is 0, `min_not_zero`), then gains (ce << (10 - shift)) / total, capped at 1024.
pub fn update_alpha_fixed(alpha: u32, ce: u64, total: u64, shift_g: u32) -> u32 {
    let decay = alpha >> shift_g;
    let mut alpha = alpha - if decay == 0 { alpha } else { decay };
    if ce > 0 {
        let gain = (ce << (10 - shift_g)) / total.max(1);
        alpha = (alpha as u64 + gain).min(ALPHA_ONE as u64) as u32;
    }
    alpha
}

/// The same in real numbers: alpha = (1 - g) alpha + g F, F = 0 when nothing was acknowledged.
pub fn update_alpha_float(alpha: f64, ce: u64, total: u64, shift_g: u32) -> f64 {
    let g = 1.0 / (1u64 << shift_g) as f64;
    let fraction = if total == 0 { 0.0 } else { ce as f64 / total as f64 };
    (1.0 - g) * alpha + g * fraction
}

pub struct Dctcp {
    config: DctcpConfig,
    window: SegmentWindow,
    alpha: Alpha,
    /// The observation window ends when snd_una reaches this (bytes); 0 at the start, as Linux
    /// records snd_nxt before any data, so the first ACK closes a first, short window.
    next_seq: u64,
    /// Segments acknowledged in this window, and those acknowledged by ACKs with ECE.
    delivered: u64,
    delivered_ce: u64,
}

impl Dctcp {
    pub fn new(config: DctcpConfig, info: ConnectionInfo) -> Self {
        let alpha = match config.arithmetic {
            Arithmetic::Linux => Alpha::Fixed((config.alpha_on_init * ALPHA_ONE as f64) as u32),
            Arithmetic::Float => Alpha::Float(config.alpha_on_init),
        };
        Self { config, window: SegmentWindow::for_connection(&info), alpha, next_seq: 0, delivered: 0, delivered_ce: 0 }
    }

    /// ssthresh after an ECN-Echo: cwnd (1 - alpha / 2) segments, at least 2.
    fn alpha_ssthresh(&self) -> u32 {
        let cwnd = self.window.cwnd;
        let reduced = match self.alpha {
            Alpha::Fixed(a) => cwnd - ((cwnd as u64 * a as u64) >> 11) as u32,
            Alpha::Float(a) => (cwnd as f64 * (1.0 - a / 2.0)) as u32,
        };
        reduced.max(2)
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, ack: &AckEvent) {
        self.delivered += ack.acked_segments as u64;
        if ack.ece {
            self.delivered_ce += ack.acked_segments as u64;
        }
        if ack.snd_una >= self.next_seq {
            let (ce, total, shift) = (self.delivered_ce, self.delivered, self.config.shift_g);
            self.alpha = match self.alpha {
                Alpha::Fixed(a) => Alpha::Fixed(update_alpha_fixed(a, ce, total, shift)),
                Alpha::Float(a) => Alpha::Float(update_alpha_float(a, ce, total, shift)),
            };
            self.next_seq = ack.snd_nxt;
            self.delivered = 0;
            self.delivered_ce = 0;
        }
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        self.window.reno_increase(ack.acked_segments);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let ssthresh = match (event.kind, self.config.loss_response) {
            (CongestionKind::Ecn, _) | (_, LossResponse::Alpha) => self.alpha_ssthresh(),
            (CongestionKind::FastRetransmit | CongestionKind::Timeout, LossResponse::Halve) => self.window.cwnd / 2,
        };
        self.window.reduce(ssthresh, event.kind);
    }

    fn required_ecn(&self) -> Option<EcnEcho> {
        Some(EcnEcho::Dctcp)
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::FakeSender;
    use crate::time::NANOS_PER_MILLI as MS;

    #[test]
    fn alpha_update_vectors_in_linux_fixed_point_and_in_real_numbers() {
        // g = 1/16. Alpha 1 (1024), a window with F = 4/16 = 0.25:
        // 1 - 1/16 + 0.25/16 = 0.953125 = 976/1024; fixed: 1024 - (1024 >> 4 = 64) + (4 << 6) / 16 = 976.
        assert_eq!(update_alpha_fixed(1024, 4, 16, 4), 976);
        assert_eq!(update_alpha_float(1.0, 4, 16, 4), 0.953125);
        // Again F = 0.25: 0.953125 x 15/16 + 1/64 = 0.9091796875 (930.97/1024); fixed 976 - 61 + 16 = 931.
        assert_eq!(update_alpha_fixed(976, 4, 16, 4), 931);
        assert_eq!(update_alpha_float(0.953125, 4, 16, 4), 0.9091796875);
        // An unmarked window: 931 - (931 >> 4 = 58) = 873; 0.9091796875 x 15/16 = 0.852355957...
        assert_eq!(update_alpha_fixed(931, 0, 16, 4), 873);
        assert!((update_alpha_float(0.9091796875, 0, 16, 4) - 0.852_355_957_031_25).abs() < 1e-15);
        // Below 16/1024, alpha >> 4 is 0 and Linux's min_not_zero clears alpha altogether.
        assert_eq!(update_alpha_fixed(15, 0, 10, 4), 0);
        assert_eq!(update_alpha_fixed(16, 0, 10, 4), 15);
        // Every segment marked: 873 - 54 + (10 << 6) / 10 = 883; capped at 1024 from 1024.
        assert_eq!(update_alpha_fixed(873, 10, 10, 4), 883);
        assert_eq!(update_alpha_fixed(1024, 10, 10, 4), 1024);
        // shift_g = 0 (g = 1): alpha becomes F; 3 of 8 marked = 0.375 = 384/1024.
        assert_eq!(update_alpha_fixed(1024, 3, 8, 0), 384);
        // Nothing acknowledged in a window (total 0): no division by zero, only the decay.
        assert_eq!(update_alpha_fixed(1024, 0, 0, 4), 960);
        assert_eq!(update_alpha_float(1.0, 0, 0, 4), 0.9375);
    }

    fn dctcp_at(cwnd: u32, alpha: Alpha) -> Dctcp {
        let mut d = Dctcp::new(DctcpConfig::default(), ConnectionInfo::new(1000, 10, 1));
        d.window.cwnd = cwnd;
        d.alpha = alpha;
        d
    }

    fn reduce(d: &mut Dctcp, kind: CongestionKind) -> (u32, u32) {
        d.on_congestion_event(&CongestionEvent { now: 0, kind, bytes_in_flight: 0, snd_nxt: 0 });
        (d.window.cwnd, d.window.ssthresh)
    }

    #[test]
    fn ecn_reduction_is_cwnd_times_one_minus_alpha_over_two() {
        // alpha 0.5: 100 - (100 x 512 >> 11 = 25) = 75 = 100 (1 - 0.25).
        assert_eq!(reduce(&mut dctcp_at(100, Alpha::Fixed(512)), CongestionKind::Ecn), (75, 75));
        // alpha 1: halves, as RFC 3168.
        assert_eq!(reduce(&mut dctcp_at(100, Alpha::Fixed(1024)), CongestionKind::Ecn), (50, 50));
        // alpha 931/1024: 10 - (9310 >> 11 = 4) = 6; in real numbers 10 (1 - 0.4546) = 5.45 -> 5.
        assert_eq!(reduce(&mut dctcp_at(10, Alpha::Fixed(931)), CongestionKind::Ecn), (6, 6));
        assert_eq!(reduce(&mut dctcp_at(10, Alpha::Float(931.0 / 1024.0)), CongestionKind::Ecn), (5, 5));
        // alpha 0.0625 at 1000 segments: 1000 - (64000 >> 11 = 31) = 969.
        assert_eq!(reduce(&mut dctcp_at(1000, Alpha::Fixed(64)), CongestionKind::Ecn), (969, 969));
        // Never below 2 segments: 2 - (2048 >> 11 = 1) = 1 -> 2.
        assert_eq!(reduce(&mut dctcp_at(2, Alpha::Fixed(1024)), CongestionKind::Ecn), (2, 2));
    }

    #[test]
    fn loss_halves_as_linux_or_follows_alpha_as_ns3() {
        // Linux dctcp_react_to_loss: ssthresh = cwnd / 2 whatever alpha is.
        assert_eq!(reduce(&mut dctcp_at(100, Alpha::Fixed(64)), CongestionKind::FastRetransmit), (50, 50));
        assert_eq!(reduce(&mut dctcp_at(100, Alpha::Fixed(64)), CongestionKind::Timeout), (1, 50));
        // ns-3 3.44: GetSsThresh = (1 - alpha / 2) cwnd for losses too: 100 (1 - 0.03125) = 96.875 -> 96.
        let mut ns3 = dctcp_at(100, Alpha::Float(0.0625));
        ns3.config.loss_response = LossResponse::Alpha;
        assert_eq!(reduce(&mut ns3, CongestionKind::FastRetransmit), (96, 96));
    }

    /// One round trip of 1-segment ACKs with every `period`-th segment (counted from the start
    /// of the connection) acknowledged by an ACK with ECE; the window is refilled after each ACK.
    fn marked_round(s: &mut FakeSender, period: u64) {
        s.advance(s.rtt);
        let end = s.snd_nxt;
        while s.snd_una < end {
            s.ece = (s.snd_una / s.mss).is_multiple_of(period);
            s.ack(1);
            s.fill_window();
        }
    }

    #[test]
    fn a_constant_marked_fraction_drives_alpha_to_it_through_the_fake_sender() {
        // 1000 segments in flight, growth frozen (not cwnd-limited) so that only alpha changes;
        // one segment in four is acknowledged with ECE: F = 0.25 per window up to rounding (a
        // window is 999 segments, 249 or 250 of them marked: F = 15 or 16 in 1024ths x 16).
        let mut s = FakeSender::new("dctcp", &Value::Null, 1000, 1000, 100 * MS);
        s.cwnd_limited = false;
        s.fill_window();
        for _ in 0..120 {
            marked_round(&mut s, 4);
        }
        // Linux's fixed point settles where (alpha >> 4) equals the gain: alpha in [240, 271]
        // for gains of 15 and 16, i.e. 0.234 to 0.265. Read alpha back from one ECN reduction
        // of the 1000-segment window: cwnd = 1000 - (1000 alpha >> 11).
        s.ecn_echo();
        let cut = 1000.0 - s.cwnd_segments();
        let alpha = cut * 2048.0 / 1000.0;
        assert!((0.230 * 1024.0..=0.266 * 1024.0).contains(&alpha), "alpha {alpha}/1024 after a cut of {cut}");
        // Without marks alpha decays: (15/16)^n from there, to 0 within 80 windows (Linux clears
        // alpha below 16/1024); the next reduction then only takes the floor of 0.
        let mut calm = FakeSender::new("dctcp", &Value::Null, 1000, 1000, 100 * MS);
        calm.cwnd_limited = false;
        calm.fill_window();
        for _ in 0..80 {
            marked_round(&mut calm, u64::MAX);
        }
        calm.ecn_echo();
        assert_eq!(calm.cwnd_segments(), 1000.0);
    }

    #[test]
    fn the_first_ecn_reaction_halves_because_alpha_starts_at_one() {
        let mut s = FakeSender::new("dctcp", &Value::Null, 1000, 10, 10 * MS);
        s.fill_window();
        s.ecn_echo();
        assert_eq!(s.cwnd_segments(), 5.0);
        // alpha_on_init = 0: the first reaction takes nothing off.
        let mut gentle = FakeSender::new("dctcp", &serde_json::json!({"alpha_on_init": 0.0}), 1000, 10, 10 * MS);
        gentle.fill_window();
        gentle.ecn_echo();
        assert_eq!(gentle.cwnd_segments(), 10.0);
    }
}
