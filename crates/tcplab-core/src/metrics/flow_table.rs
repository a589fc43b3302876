//! One row per flow (TCP and UDP alike) at the end of a run; columns and units in docs/results.md.

use crate::results::{Column, Table};

/// What one flow achieved. NaN (floats) or 0 (counts) where a value does not apply to the flow's
/// protocol.
pub struct FlowRow {
    pub flow_id: u64,
    pub name: String,
    pub protocol: &'static str,
    pub cc: String,
    pub source: String,
    pub destination: String,
    pub start_s: f64,
    pub base_rtt_ms: f64,
    /// TCP: the MSS; UDP: the datagram's wire size.
    pub packet_payload_bytes: u64,
    pub size_bytes: f64,
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    pub bytes_sent: u64,
    pub throughput_bps: f64,
    pub packets_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    /// Timeouts with data outstanding outside the window after an ECN reduction (ns-2's
    /// `nrexmit_`).
    pub timeouts_after_loss: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    pub rtt_mean_ms: f64,
    pub rtt_min_ms: f64,
    pub rtt_p50_ms: f64,
    pub rtt_p95_ms: f64,
    pub rtt_p99_ms: f64,
    pub completion_time_s: f64,
    pub duplicate_bytes: u64,
    /// Data packets (TCP segments, UDP datagrams) the network discarded, over those sent.
    pub packets_lost: u64,
    pub loss_ratio: f64,
    pub one_way_delay_mean_ms: f64,
    pub one_way_delay_p50_ms: f64,
    pub one_way_delay_p95_ms: f64,
    /// UDP: RFC 3550 interarrival jitter; NaN for TCP.
    pub jitter_ms: f64,
}

/// The flows table, rows ordered by flow id.
pub fn flow_table(mut rows: Vec<FlowRow>) -> Table {
    rows.sort_by_key(|row| row.flow_id);
    let u64s = |f: fn(&FlowRow) -> u64| Column::U64(rows.iter().map(f).collect());
    let f64s = |f: fn(&FlowRow) -> f64| Column::F64(rows.iter().map(f).collect());
    let strings = |f: fn(&FlowRow) -> &str| Column::Str(rows.iter().map(|row| f(row).to_string()).collect());
    let mut t = Table::default();
    t.push("flow_id", u64s(|r| r.flow_id));
    t.push("name", strings(|r| &r.name));
    t.push("protocol", strings(|r| r.protocol));
    t.push("cc", strings(|r| &r.cc));
    t.push("source", strings(|r| &r.source));
    t.push("destination", strings(|r| &r.destination));
    t.push("start_s", f64s(|r| r.start_s));
    t.push("base_rtt_ms", f64s(|r| r.base_rtt_ms));
    t.push("packet_payload_bytes", u64s(|r| r.packet_payload_bytes));
    t.push("size_bytes", f64s(|r| r.size_bytes));
    t.push("bytes_delivered", u64s(|r| r.bytes_delivered));
    t.push("goodput_bps", f64s(|r| r.goodput_bps));
    t.push("bytes_sent", u64s(|r| r.bytes_sent));
    t.push("throughput_bps", f64s(|r| r.throughput_bps));
    t.push("packets_sent", u64s(|r| r.packets_sent));
    t.push("retransmitted_segments", u64s(|r| r.retransmitted_segments));
    t.push("retransmitted_bytes", u64s(|r| r.retransmitted_bytes));
    t.push("timeouts", u64s(|r| r.timeouts));
    t.push("timeouts_after_loss", u64s(|r| r.timeouts_after_loss));
    t.push("fast_recoveries", u64s(|r| r.fast_recoveries));
    t.push("ecn_reductions", u64s(|r| r.ecn_reductions));
    t.push("rtt_mean_ms", f64s(|r| r.rtt_mean_ms));
    t.push("rtt_min_ms", f64s(|r| r.rtt_min_ms));
    t.push("rtt_p50_ms", f64s(|r| r.rtt_p50_ms));
    t.push("rtt_p95_ms", f64s(|r| r.rtt_p95_ms));
    t.push("rtt_p99_ms", f64s(|r| r.rtt_p99_ms));
    t.push("completion_time_s", f64s(|r| r.completion_time_s));
    t.push("duplicate_bytes", u64s(|r| r.duplicate_bytes));
    t.push("packets_lost", u64s(|r| r.packets_lost));
    t.push("loss_ratio", f64s(|r| r.loss_ratio));
    t.push("one_way_delay_mean_ms", f64s(|r| r.one_way_delay_mean_ms));
    t.push("one_way_delay_p50_ms", f64s(|r| r.one_way_delay_p50_ms));
    t.push("one_way_delay_p95_ms", f64s(|r| r.one_way_delay_p95_ms));
    t.push("jitter_ms", f64s(|r| r.jitter_ms));
    t
}
