//! Loss recovery on the sender: duplicate ACKs, fast retransmit and fast recovery, the window
//! during recovery, ECN reactions, and undoing reductions that prove spurious.
//!
//! - Reno (RFC 5681 section 3.2, as ns-2's Reno agent): 3 duplicate ACKs retransmit the first
//!   unacknowledged segment, ssthresh comes from the algorithm, cwnd is inflated by 3 segments
//!   plus one per further duplicate; the first ACK that advances, even a partial one, ends
//!   recovery. Another loss in the same window then waits for the timer: no new fast retransmit
//!   until the recovery point is acknowledged (ns-2's `bug_fix_`).
//! - NewReno (RFC 6582): as Reno, but a partial ACK retransmits the next hole and deflates by the
//!   newly acknowledged amount (adding back one segment if at least one was acknowledged); the
//!   first partial ACK restarts the timer ("impatient"); the full ACK ends recovery.
//! - SACK (RFC 6675): a segment is lost once `duplicate_threshold` segments above it are SACKed,
//!   or by RACK's time rule when RACK is on (then RACK alone marks losses, as in Linux);
//!   recovery starts on the 3rd duplicate ACK carrying SACK information or when a segment is
//!   marked lost; the sender sends while pipe < window, lost segments first (NextSeg rule 1),
//!   then new data (rule 2). The window is the algorithm's cwnd, or PRR's (RFC 6937) when `prr`
//!   is on and the algorithm leaves recovery to the sender. Without RACK, on a partial ACK the
//!   new first segment is marked lost if it was sent before recovery began (Linux's head marking).
//! - RFC 3042 Limited Transmit: with Reno and NewReno, duplicate ACKs 1 and 2 each allow one new
//!   segment beyond cwnd; with SACK the SACKed segments already leave the pipe (as in Linux);
//!   turning the option off withholds that credit until recovery starts. The FlightSize that fast
//!   retransmit hands the algorithm leaves those segments out (RFC 5681 section 3.2 step 2).
//! - ECN (RFC 3168): an ACK with ECE reduces the window through the algorithm at most once per
//!   window of data, and the next new segment carries CWR. With `ecn_response = "rfc3168"` a
//!   reduction when the window is one segment or less leaves it below one segment, as ns-2's
//!   `slowdown` halves a window of 1 to 0.5: no data leaves until the retransmission timer
//!   expires, which then releases one new segment (section 6.1.2); a second such reduction in a
//!   row backs the timer off (ns-2 `ecn`, `ecn_backoff_`).
//! - Undo (Linux `tcp_undo_cwnd_reduction`): a fast recovery or timeout is undone when an ACK
//!   shows that an original segment, not its retransmission, arrived: with timestamps its echo
//!   predates the episode's first retransmission (Eifel, RFC 3522); after a timeout with F-RTO
//!   (RFC 5682 section 3, SACK-enhanced as Linux), a segment sent only once was acknowledged or
//!   SACKed. F-RTO also sends new data on the first ACK that advances after the timeout, instead
//!   of retransmitting, so that the next ACK can tell.

use super::ack::AckProgress;
use super::{Reduction, TcpSender};
use crate::cc::{CongestionEvent, CongestionKind};
use crate::net::packet::Packet;
use crate::tcp::prr::Prr;
use crate::tcp::{EcnResponse, EndpointContext, RecoveryMode, ReductionBase};
use crate::time::SimTime;

impl TcpSender {
    /// An ACK carried ECN-Echo: the algorithm reduces once per window, outside loss recovery.
    /// RFC 3168's response as ns-2 (`TcpAgent::ecn`) also answers at once after a timeout, and
    /// halves the window rather than the flight (`slowdown` halves `window()`).
    pub(super) fn on_ecn_echo(&mut self, now: SimTime, flight_size_before: u64) {
        let rfc3168 = self.config.ecn_response == EcnResponse::Rfc3168;
        let due = if rfc3168 {
            // ns-2: the ACK must cover a segment sent after the last reduction (`seqno > recover_`).
            self.snd_una > self.ecn_recover || self.last_reduction == Reduction::Timeout
        } else {
            !self.in_recovery && !self.in_timeout_recovery && self.snd_una >= self.ecn_recover
        };
        if !self.config.ecn || !due {
            return;
        }
        let mut basis = self.reduction_basis(flight_size_before, false);
        if rfc3168 {
            let window = if self.one_segment_cap { self.mss() } else { self.effective_cwnd() };
            basis = window.min(self.peer_window);
            if window <= self.mss() {
                if self.ecn_backoff {
                    self.rtt.back_off();
                } else {
                    self.ecn_backoff = true;
                }
                self.ecn_wait = true;
            } else {
                self.ecn_backoff = false;
            }
        }
        self.last_reduction = Reduction::Ecn;
        self.ecn_responded = true;
        let (cwnd_before, ssthresh_before) = (self.cc.cwnd(), self.cc.ssthresh());
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::Ecn,
            bytes_in_flight: basis,
            snd_nxt: self.snd_nxt,
        });
        // RFC 3168 at one segment: the sender itself halves below one segment (the ECN wait).
        if self.ecn_wait || self.cc.cwnd() < cwnd_before || self.cc.ssthresh() < ssthresh_before {
            self.stats.ecn_reductions += 1;
        }
        self.ecn_recover = self.snd_nxt;
        self.cwr_pending = true;
    }

    /// Counts duplicate ACKs, runs F-RTO after a timeout, and enters, advances or leaves fast
    /// recovery.
    pub(super) fn detect_loss(
        &mut self,
        ack: &Packet,
        ack_advances: bool,
        progress: &AckProgress,
        flight_size_before: u64,
        ctx: &mut EndpointContext,
    ) {
        let now = ctx.events.now();
        let is_duplicate = !ack_advances
            && self.snd_nxt > self.snd_una
            && match self.config.recovery {
                RecoveryMode::NewReno | RecoveryMode::Reno => ack.ack == self.snd_una,
                RecoveryMode::Sack => progress.new_sack_info,
            };
        if ack_advances {
            self.duplicate_acks = 0;
        } else if is_duplicate {
            self.duplicate_acks += 1;
        }

        if self.in_timeout_recovery {
            self.frto_step(ack_advances, is_duplicate, progress);
            if self.snd_una >= self.recover {
                self.in_timeout_recovery = false;
                self.frto_high_seq = None;
                self.undo = None;
                self.cc.on_timeout_recovery_exit(now);
            }
        }
        if self.in_recovery {
            let ends = self.snd_una >= self.recover || (self.config.recovery == RecoveryMode::Reno && ack_advances);
            if ends {
                self.exit_recovery(now);
            } else if ack_advances {
                self.on_partial_ack(progress.newly_acked_bytes, ctx);
            } else if is_duplicate && self.config.recovery != RecoveryMode::Sack {
                self.inflation += self.config.mss as i64;
            }
        } else if !self.in_timeout_recovery && self.snd_una >= self.recover {
            let loss_marked = self.config.recovery == RecoveryMode::Sack && self.lost_count > 0;
            if self.duplicate_acks >= self.config.duplicate_threshold || loss_marked {
                let flight_size = flight_size_before.saturating_sub(self.limited_transmit_bytes);
                self.enter_recovery(self.reduction_basis(flight_size, true), ctx);
            }
        }
    }

    /// F-RTO's steps after a timeout (RFC 5682 section 3; step 3b, the undo, is in
    /// `check_spurious_reduction`).
    fn frto_step(&mut self, ack_advances: bool, is_duplicate: bool, progress: &AckProgress) {
        let Some(high) = self.frto_high_seq else { return };
        if self.snd_nxt > high {
            // Step 3a: new data went out and the answer is a duplicate: the loss was real.
            if progress.new_sack_info || is_duplicate {
                self.frto_high_seq = None;
            }
        } else if ack_advances && self.snd_una < self.recover {
            // Step 2b: answer with new data, so that the next ACK tells whether originals arrive.
            self.frto_high_seq = Some(self.snd_nxt);
            self.frto_send_new = true;
        }
    }

    /// RFC 6675 IsLost: every un-SACKed segment below the `duplicate_threshold`-th highest SACKed
    /// segment is lost. Walks down from the top only as far as needed.
    pub(super) fn mark_losses_from_sack(&mut self) {
        let threshold = self.config.duplicate_threshold as u64;
        if self.sacked_count < threshold {
            return;
        }
        let Some(highest) = self.highest_sacked else { return };
        let mut seen = 0;
        let mut boundary = None;
        for offset in (0..=highest).rev() {
            if self.segments[offset].sacked {
                seen += 1;
                if seen == threshold {
                    boundary = Some(offset);
                    break;
                }
            }
            if (offset as u64) < self.loss_marked_below {
                break;
            }
        }
        let Some(boundary) = boundary else { return };
        let from = self.loss_marked_below as usize;
        for offset in from..boundary {
            self.mark_lost(offset);
        }
        self.loss_marked_below = self.loss_marked_below.max(boundary as u64);
    }

    /// What the algorithm reduces from (`tcp.reduction_base`): FlightSize, or ns-3's pipe: the
    /// data outstanding less what is SACKed and lost, the first unacknowledged segment counted
    /// lost at a fast retransmit; without SACK each duplicate ACK counts as one segment delivered
    /// and the lost one is added back (tcp-socket-base.cc 1715-1717).
    pub(super) fn reduction_basis(&self, flight_size: u64, fast_retransmit: bool) -> u64 {
        if self.config.reduction_base == ReductionBase::FlightSize {
            return flight_size;
        }
        let (mss, outstanding) = (self.config.mss, self.snd_nxt - self.snd_una);
        if self.config.recovery != RecoveryMode::Sack {
            return outstanding.saturating_sub(self.duplicate_acks as u64 * mss);
        }
        let lost = if fast_retransmit { self.lost_count.max(1) } else { self.lost_count };
        outstanding.saturating_sub((self.sacked_count + lost) * mss)
    }

    /// cwnd and ssthresh to restore if a reduction made now proves spurious: Linux's prior_cwnd
    /// and `tcp_current_ssthresh` (at least cwnd/2 + cwnd/4, in whole segments).
    pub(super) fn window_before_reduction(&self) -> (u64, u64) {
        let (cwnd, mss) = (self.cc.cwnd(), self.config.mss);
        let segments = cwnd / mss;
        (cwnd, self.cc.ssthresh().max((segments / 2 + segments / 4) * mss))
    }

    /// RFC 6582 steps 1-2 and RFC 6675 steps 4.1-4.3: ssthresh from `basis` (FlightSize, or the
    /// pipe with `reduction_base = "pipe"`) via the algorithm, then retransmit the first lost
    /// segment whatever the window says.
    pub(super) fn enter_recovery(&mut self, basis: u64, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        // RFC 3168 as ns-2's Reno, NewReno and Sack1 (`dupack_action`): a loss found in the
        // window of an ECN reduction is repaired without a second reduction, and that window's end
        // stays the recovery point (ns-2 keeps `recover_`); the window was already halved once.
        let after_ecn = self.config.ecn_response == EcnResponse::Rfc3168
            && self.last_reduction == Reduction::Ecn
            && self.snd_una <= self.ecn_recover;
        self.undo = Some(self.window_before_reduction());
        self.first_retransmission_at = None;
        self.last_reduction = Reduction::FastRetransmit;
        // ns-2 `reset_rtx_timer` at fast retransmit ends the RTT timing (Karn).
        self.rtt_timed = None;
        self.in_recovery = true;
        self.partial_ack_seen = false;
        self.stats.fast_recoveries += 1;
        self.probe_deadline = None;
        self.probe_outstanding = None;
        if after_ecn {
            self.recover = self.ecn_recover;
        } else {
            self.recover = self.snd_nxt;
            self.ecn_recover = self.snd_nxt;
            self.cwr_pending = self.config.ecn;
            self.cc.on_congestion_event(&CongestionEvent {
                now,
                kind: CongestionKind::FastRetransmit,
                bytes_in_flight: basis,
                snd_nxt: self.snd_nxt,
            });
        }
        self.inflation = match self.config.recovery {
            RecoveryMode::NewReno | RecoveryMode::Reno => {
                (self.config.duplicate_threshold as u64 * self.config.mss) as i64
            }
            RecoveryMode::Sack => 0,
        };
        let prr = self.config.prr && self.config.recovery == RecoveryMode::Sack && !self.cc.owns_recovery_window();
        self.prr = prr.then(|| Prr::start(self.snd_nxt - self.snd_una));
        self.prr_window = self.bytes_in_flight();
        if self.config.rack && self.config.recovery == RecoveryMode::Sack {
            // RACK marked the losses; the first goes out now (Linux forces one transmission).
            if let Some(offset) = self.next_retransmission() {
                self.retransmit(offset, ctx);
            }
        } else {
            self.retransmit_first_unacknowledged(ctx);
        }
    }

    /// Marks the first unacknowledged segment lost and resends it now, outside the window.
    fn retransmit_first_unacknowledged(&mut self, ctx: &mut EndpointContext) {
        let Some(first) = self.segments.front() else { return };
        if first.sacked || first.retransmission_in_flight {
            return;
        }
        self.mark_lost(0);
        self.retransmit(0, ctx);
    }

    fn on_partial_ack(&mut self, newly_acked: u64, ctx: &mut EndpointContext) {
        let mss = self.config.mss;
        if self.config.recovery == RecoveryMode::NewReno {
            self.inflation -= newly_acked as i64;
            if newly_acked >= mss {
                self.inflation += mss as i64;
            }
            if !self.partial_ack_seen {
                self.arm_rto(ctx);
            }
        }
        self.partial_ack_seen = true;
        match self.config.recovery {
            // RFC 6582 step 5: retransmit the first unacknowledged segment at once.
            RecoveryMode::NewReno | RecoveryMode::Reno => self.retransmit_first_unacknowledged(ctx),
            // The new first segment was sent before recovery began: it is lost too, and goes
            // out when the pipe allows (RACK, when on, decides this itself).
            RecoveryMode::Sack => {
                if !self.config.rack && self.segments.front().is_some_and(|f| !f.sacked && !f.lost) {
                    self.mark_lost(0);
                }
            }
        }
    }

    fn exit_recovery(&mut self, now: SimTime) {
        self.in_recovery = false;
        self.inflation = 0;
        self.duplicate_acks = 0;
        self.prr = None;
        self.undo = None;
        self.cc.on_recovery_exit(now);
    }

    /// PRR's window after this ACK: the pipe plus what PRR lets the sender send now.
    pub(super) fn update_prr_window(&mut self, ack_advances: bool, progress: &AckProgress, lost_marks_before: u64) {
        if !self.in_recovery {
            return;
        }
        let pipe = self.bytes_in_flight();
        let (mss, ssthresh) = (self.config.mss, self.cc.ssthresh());
        let safe_ack = ack_advances && self.lost_marks == lost_marks_before;
        if let Some(prr) = self.prr.as_mut() {
            self.prr_window = pipe + prr.send_quota(progress.newly_acked_bytes, pipe, ssthresh, mss, safe_ack);
        }
    }

    /// Undoes the current reduction when this ACK shows it was spurious (see the module docs).
    pub(super) fn check_spurious_reduction(
        &mut self,
        ack: &Packet,
        ack_advances: bool,
        progress: &AckProgress,
        now: SimTime,
    ) {
        if !self.config.undo || self.undo.is_none() || !(self.in_recovery || self.in_timeout_recovery) {
            return;
        }
        let original_echoed = self.config.timestamps
            && ack_advances
            && self.first_retransmission_at.is_some_and(|first| ack.ts_echo < first);
        let frto_spurious = self.in_timeout_recovery && self.frto_high_seq.is_some() && progress.original_delivered;
        if original_echoed || frto_spurious {
            self.undo_reduction(now);
        }
    }

    fn undo_reduction(&mut self, now: SimTime) {
        let Some((prior_cwnd, prior_ssthresh)) = self.undo.take() else { return };
        self.cc.undo_reduction(now, prior_cwnd, prior_ssthresh);
        self.stats.undone_reductions += 1;
        self.stats.events.push((now, "undo"));
        // The segments marked lost were not lost (Linux unmarks them too).
        if self.lost_count > 0 {
            for segment in self.segments.iter_mut().filter(|s| s.lost) {
                segment.lost = false;
            }
            self.lost_count = 0;
        }
        self.retransmit_hint = self.segments.len() as u64;
        self.rack_scan_from = 0;
        let was_timeout = self.in_timeout_recovery;
        self.in_recovery = false;
        self.in_timeout_recovery = false;
        self.inflation = 0;
        self.prr = None;
        self.frto_high_seq = None;
        self.frto_send_new = false;
        self.duplicate_acks = 0;
        // A new loss may start a new recovery at once.
        self.recover = self.snd_una;
        if was_timeout {
            self.cc.on_timeout_recovery_exit(now);
        }
    }

    /// A tail loss probe repaired a loss: reduce once, as a fast recovery that is already over
    /// (Linux enters and ends its CWR state at once).
    pub(super) fn reduce_after_repaired_tail_loss(&mut self, now: SimTime) {
        if self.in_recovery || self.in_timeout_recovery {
            return;
        }
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: self.snd_nxt - self.snd_una,
            snd_nxt: self.snd_nxt,
        });
        self.cc.on_recovery_exit(now);
        self.ecn_recover = self.snd_nxt;
        self.collect_events(now);
    }
}
