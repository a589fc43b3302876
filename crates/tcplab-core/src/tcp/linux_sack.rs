//! The SACK blocks a Linux receiver reports (`tp->selective_acks`, net/ipv4/tcp_input.c): at most
//! four (TCP_NUM_SACKS), kept most recently changed first, of which an ACK carries the first three
//! when timestamps take part of the option room (`tcp_established_options`; tcplab's ACKs carry
//! at most three in any case). An out-of-order segment extends the block it overlaps or adjoins,
//! which moves to the front and absorbs any other block it now reaches (`tcp_sack_extend`,
//! `tcp_sack_maybe_coalesce`), or starts a new block in front, pushing the fourth out
//! (`tcp_sack_new_ofo_skb`); blocks the cumulative ACK reaches go (`tcp_sack_remove`).
//!
//! When a new block would push one out while compressed ACKs are pending, Linux sends the pending
//! ACK first (`tcp_sack_compress_send_ack`), so that compression never hides a block from the
//! sender (`would_push_one_out`; the receiver sends). tcplab's compressed SACKs had reported only
//! the three highest blocks after up to 1 ms of arrivals, and a sender that never heard of the
//! others retransmitted segments that had arrived: 87 of the 485 retransmissions of one Reno
//! flow on 1 BDP at 40 ms (docs/linux-fidelity.md).

use crate::net::packet::MAX_SACK_BLOCKS;

/// Blocks a Linux receiver keeps (TCP_NUM_SACKS).
pub const KEPT_BLOCKS: usize = 4;

/// [start, end) byte ranges of the stream, most recently changed first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u64, u64); KEPT_BLOCKS],
    count: usize,
}

/// `tcp_sack_extend`'s test: the range overlaps the block or adjoins it.
fn touches((start, end): (u64, u64), (other_start, other_end): (u64, u64)) -> bool {
    start <= other_end && other_start <= end
}

impl SackBlocks {
    /// Whether out-of-order data [start, end) would push a block out: it touches none of the
    /// four kept.
    pub fn would_push_one_out(&self, start: u64, end: u64) -> bool {
        self.count == KEPT_BLOCKS && !self.kept().iter().any(|&block| touches(block, (start, end)))
    }

    /// Out-of-order data [start, end) arrived.
    pub fn on_out_of_order(&mut self, start: u64, end: u64) {
        let Some(index) = self.kept().iter().position(|&block| touches(block, (start, end))) else {
            self.count = self.count.min(KEPT_BLOCKS - 1);
            self.blocks.copy_within(0..self.count, 1);
            self.blocks[0] = (start, end);
            self.count += 1;
            return;
        };
        let (block_start, block_end) = self.blocks[index];
        self.blocks.copy_within(0..index, 1);
        self.blocks[0] = (block_start.min(start), block_end.max(end));
        let mut other = 1;
        while other < self.count {
            if touches(self.blocks[0], self.blocks[other]) {
                self.blocks[0] =
                    (self.blocks[0].0.min(self.blocks[other].0), self.blocks[0].1.max(self.blocks[other].1));
                self.blocks.copy_within(other + 1..self.count, other);
                self.count -= 1;
            } else {
                other += 1;
            }
        }
    }

    /// The cumulative ACK is now `rcv_nxt`: the blocks it reaches go (none is left once no
    /// out-of-order data is held).
    pub fn on_cumulative_ack(&mut self, rcv_nxt: u64) {
        let mut kept = 0;
        for index in 0..self.count {
            if self.blocks[index].0 > rcv_nxt {
                self.blocks[kept] = self.blocks[index];
                kept += 1;
            }
        }
        self.count = kept;
    }

    /// The blocks an ACK reports, most recently changed first.
    pub fn reported(&self) -> &[(u64, u64)] {
        &self.blocks[..self.count.min(MAX_SACK_BLOCKS)]
    }

    fn kept(&self) -> &[(u64, u64)] {
        &self.blocks[..self.count]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_block_goes_in_front_and_the_fifth_pushes_the_oldest_out() {
        let mut sack = SackBlocks::default();
        for start in [10, 20, 30, 40] {
            assert!(!sack.would_push_one_out(start, start + 5));
            sack.on_out_of_order(start, start + 5);
        }
        assert_eq!(sack.reported(), &[(40, 45), (30, 35), (20, 25)]);
        assert!(sack.would_push_one_out(50, 55));
        assert!(!sack.would_push_one_out(45, 48), "adjoining [40, 45) extends it");
        sack.on_out_of_order(50, 55);
        assert_eq!(sack.kept(), &[(50, 55), (40, 45), (30, 35), (20, 25)], "[10, 15) is forgotten");
    }

    #[test]
    fn an_extended_block_moves_to_the_front_and_absorbs_the_blocks_it_reaches() {
        let mut sack = SackBlocks::default();
        for (start, end) in [(10, 15), (20, 25), (30, 35)] {
            sack.on_out_of_order(start, end);
        }
        // [15, 20) joins [10, 15) and [20, 25): one block [10, 25), in front.
        sack.on_out_of_order(15, 20);
        assert_eq!(sack.kept(), &[(10, 25), (30, 35)]);
        sack.on_out_of_order(35, 40);
        assert_eq!(sack.kept(), &[(30, 40), (10, 25)]);
    }

    #[test]
    fn the_cumulative_ack_removes_the_blocks_it_reaches() {
        let mut sack = SackBlocks::default();
        for (start, end) in [(10, 15), (20, 25), (30, 35)] {
            sack.on_out_of_order(start, end);
        }
        sack.on_cumulative_ack(25);
        assert_eq!(sack.kept(), &[(30, 35)]);
        sack.on_cumulative_ack(35);
        assert!(sack.reported().is_empty());
    }
}
