//! The simulation's record of each flow: where it enters and leaves, its transport endpoints or
//! UDP counters, its application, and what the sampler last saw.

use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::time::SimDuration;
use crate::traffic::{Application, UdpStats};

pub(super) struct TcpFlow {
    /// Position among all flows of the scenario (TCP and UDP share one numbering).
    pub id: usize,
    pub name: String,
    pub algorithm: String,
    /// Nodes of the sender and the receiver.
    pub source: u32,
    pub sink: u32,
    /// A finite transfer's size in bytes.
    pub size: Option<u64>,
    pub base_rtt: SimDuration,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub app: Application,
    /// Bytes the receiver had delivered at the previous sample (for per-interval goodput).
    pub delivered_at_last_sample: u64,
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
