//! Proportional Rate Reduction (RFC 6937) as Linux runs it (net/ipv4/tcp_input.c
//! `tcp_cwnd_reduction`): during SACK recovery the sender may send, per ACK, an amount that brings
//! the pipe down to ssthresh in proportion to the data delivered, instead of stopping until half a
//! window has drained and then sending in a burst.
//!
//! On every ACK in recovery that delivered data (cumulatively or by SACK):
//!   prr_delivered += DeliveredData
//!   pipe > ssthresh:  sndcnt = ceil(prr_delivered x ssthresh / RecoverFS) - prr_out
//!   otherwise:        sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out, DeliveredData)
//!                                  + (1 MSS if the ACK advanced SND.UNA and revealed no new loss))
//! The second line is RFC 6937's slow-start reduction bound on "safe" ACKs and its conservative
//! bound otherwise, as Linux chooses between them. RecoverFS is RFC 6937's FlightSize at the start
//! of recovery (Linux uses the cwnd before the reduction, which is the same for a window-limited
//! flow). Counts are bytes here, and the proportional share is rounded up to whole segments as
//! Linux's segment counts are (RFC 9937, which obsoletes RFC 6937, keeps these rules).

/// One recovery episode's PRR state.
#[derive(Clone, Copy, Debug)]
pub struct Prr {
    recover_fs: u64,
    delivered: u64,
    sent: u64,
}

impl Prr {
    /// Recovery starts with `recover_fs` bytes sent and not cumulatively acknowledged.
    pub fn start(recover_fs: u64) -> Self {
        Self { recover_fs: recover_fs.max(1), delivered: 0, sent: 0 }
    }

    /// Counts data (new or retransmitted) sent during recovery (`prr_out`).
    pub fn on_sent(&mut self, bytes: u64) {
        self.sent += bytes;
    }

    /// Bytes the sender may send in answer to an ACK that delivered `delivered_now` bytes, with
    /// `pipe` bytes in flight after it and the algorithm's `ssthresh`.
    pub fn send_quota(&mut self, delivered_now: u64, pipe: u64, ssthresh: u64, mss: u64, safe_ack: bool) -> u64 {
        if delivered_now == 0 {
            return 0;
        }
        self.delivered += delivered_now;
        if pipe > ssthresh {
            // Whole segments, as Linux counts: ceil(delivered x ssthresh / RecoverFS) segments.
            let segments = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128 * mss as u128);
            (segments as u64 * mss).saturating_sub(self.sent)
        } else {
            let catch_up = self.delivered.saturating_sub(self.sent).max(delivered_now);
            let limit = if safe_ack { catch_up + mss } else { catch_up };
            (ssthresh - pipe).min(limit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Prr;

    const MSS: u64 = 1000;

    #[test]
    fn proportional_part_sends_ssthresh_over_recover_fs_per_delivered_segment() {
        // RFC 6937's single-loss example with Reno: 20 segments in flight, ssthresh 10, every ACK
        // delivers one segment. The ACK that starts recovery allows ceil(1 x 10 / 20) = 1
        // segment: the fast retransmission. After it, 10/20 of a segment per delivered one: one
        // transmission every other ACK, so the pipe falls by one segment every two ACKs.
        let mut prr = Prr::start(20 * MSS);
        let mut pipe = 18 * MSS; // 20 outstanding, one lost, one SACKed
        assert_eq!(prr.send_quota(MSS, pipe, 10 * MSS, MSS, false), MSS);
        prr.on_sent(MSS);
        pipe += MSS;
        let mut sent = Vec::new();
        for _ in 0..10 {
            pipe -= MSS;
            let segments = prr.send_quota(MSS, pipe, 10 * MSS, MSS, false) / MSS;
            prr.on_sent(segments * MSS);
            pipe += segments * MSS;
            sent.push(segments);
        }
        assert_eq!(sent, vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
        assert_eq!(pipe, 14 * MSS);
    }

    #[test]
    fn below_ssthresh_the_reduction_bound_catches_up() {
        let mut prr = Prr::start(20 * MSS);
        // Heavy losses: pipe 4 segments below ssthresh 10, nothing sent yet, 2 delivered.
        assert_eq!(prr.send_quota(2 * MSS, 4 * MSS, 10 * MSS, MSS, false), 2 * MSS, "conservative: delivered");
        prr.on_sent(2 * MSS);
        assert_eq!(prr.send_quota(MSS, 6 * MSS, 10 * MSS, MSS, true), 2 * MSS, "safe ACK: one more segment");
        assert_eq!(prr.send_quota(0, 6 * MSS, 10 * MSS, MSS, true), 0, "nothing delivered, nothing sent");
    }
}
