//! The simulation's record of each flow: where it enters and leaves, its transport endpoints or
//! UDP counters, its application, and what the sampler last saw.

use std::sync::Arc;

use serde_json::Value;

use crate::cc::{CongestionControl, ConnectionInfo};
use crate::sim::SimRng;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::tcp::TcpConfig;
use crate::time::SimDuration;
use crate::traffic::{Application, UdpStats};

/// In a fixed order (`repr(C)`) from a line boundary: what every packet of the flow reads first,
/// in one cache line with the sender's first bytes (the event loop prefetches it with the
/// endpoint; at 10,000 flows these fields had been spread over three lines, two of them never
/// prefetched).
#[repr(C, align(64))]
pub(super) struct TcpFlow {
    /// The connection the endpoints belong to now; packets of earlier ones are discarded.
    pub connection: u16,
    /// Nodes of the sender and the receiver.
    pub source: u32,
    pub sink: u32,
    /// A finite transfer's size in bytes.
    pub size: Option<u64>,
    pub restart: Option<Box<Restart>>,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub app: Application,
    /// Bytes the receiver had delivered at the previous sample (for per-interval goodput).
    pub delivered_at_last_sample: u64,
}

/// What reports say about a TCP flow and no packet reads: kept beside the flow records
/// (`Simulation::tcp_labels`, in the same order), not in them: 64 bytes less in each record
/// (issue 33: 10,000 records at 10,000 flows). A record is 24 cache lines, with Linux's RTO
/// variance state (`tcp/rtt_linux.rs`, 32 bytes) in it.
pub(super) struct TcpFlowLabel {
    /// Position among all flows of the scenario (TCP and UDP share one numbering).
    pub id: usize,
    pub name: String,
    /// Shared by the flows that run the same algorithm.
    pub algorithm: Arc<str>,
    pub base_rtt: SimDuration,
}

/// A connection's endpoints for TCP flow `index` from `source` to `sink`: the sender, whose
/// stream ends after `size` bytes for a finite transfer, and the receiver. A flow's first
/// connection and a restarting flow's later ones are built here alike.
pub(super) fn connection_endpoints(
    index: u32,
    (source, sink): (u32, u32),
    config: &Arc<TcpConfig>,
    controller: Box<dyn CongestionControl>,
    size: Option<u64>,
) -> (TcpSender, TcpReceiver) {
    let mut sender = TcpSender::new(index, sink, Arc::clone(config), controller);
    if let Some(size) = size {
        sender.set_stream_end(size);
    }
    (sender, TcpReceiver::new(index, source, Arc::clone(config)))
}

/// A closed loop of transfers (`restart = true`): what each new connection is made from.
pub(super) struct Restart {
    pub think_time: SimDuration,
    pub config: Arc<TcpConfig>,
    pub params: Value,
    pub info: ConnectionInfo,
    /// Seeds each new connection's algorithm.
    pub rng: SimRng,
    /// The current transfer is complete and the next connection is scheduled.
    pub pending: bool,
    /// Why a new connection's algorithm could not be created (the loop stops there).
    pub failure: Option<String>,
}

pub(super) struct UdpFlow {
    pub id: usize,
    pub name: String,
    pub source: u32,
    pub sink: u32,
    /// Datagram size on the wire.
    pub packet_bytes: u64,
    pub base_rtt: SimDuration,
    pub app: Application,
    pub stats: UdpStats,
    pub received_at_last_sample: u64,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tcp_flow_record_takes_24_cache_lines() {
        assert_eq!((std::mem::size_of::<super::TcpFlow>(), std::mem::align_of::<super::TcpFlow>()), (24 * 64, 64));
    }
}
