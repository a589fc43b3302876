//! One row per link direction at the end of a run, from the channels' own counters; columns and
//! units in docs/results.md. Its text columns are labels (each distinct text stored once, as the
//! time series' are): at 10,000 flows a string per row for the link, direction, ends and buffer
//! of 40,004 directions took 11 MB at the end of the run, when its memory peaks.

use crate::net::channel::Channel;
use crate::net::topology::Network;
use crate::results::{Column, Table};
use crate::time::{as_secs_f64, SimDuration, NANOS_PER_MILLI};

/// The links table.
pub fn link_table(network: &Network, duration: SimDuration) -> Table {
    let duration_s = as_secs_f64(duration);
    let channels = &network.channels;
    let nodes = &network.nodes;
    let stat = |f: &dyn Fn(&Channel) -> u64| Column::U64(channels.iter().map(f).collect());
    let float = |f: &dyn Fn(&Channel) -> f64| Column::F64(channels.iter().map(f).collect());
    let mut table = Table::default();
    table.push("link", Column::labels_of(network.channel_labels().map(|(link, _)| link)));
    table.push("direction", Column::labels_of(network.channel_labels().map(|(_, direction)| direction)));
    table.push("from", Column::labels_of(channels.iter().map(|c| nodes[c.from as usize].name.as_str())));
    table.push("to", Column::labels_of(channels.iter().map(|c| nodes[c.to as usize].name.as_str())));
    table.push("rate_bps", stat(&|c| c.rate_bps()));
    table.push("delay_ms", float(&|c| c.delay as f64 / NANOS_PER_MILLI as f64));
    table.push("buffer", Column::labels_of(network.setups.iter().map(|s| &*s.limit_description)));
    table.push("utilization", float(&|c| (as_secs_f64(c.stats.busy_time) / duration_s).min(1.0)));
    table.push("throughput_bps", float(&|c| c.stats.transmitted_bytes as f64 * 8.0 / duration_s));
    table.push("offered_packets", stat(&|c| c.stats.offered_packets));
    table.push("transmitted_packets", stat(&|c| c.stats.transmitted_packets));
    table.push("transmitted_bytes", stat(&|c| c.stats.transmitted_bytes));
    table.push("delivered_packets", stat(&|c| c.stats.delivered_packets));
    table.push("queue_drops", stat(&|c| c.stats.queue_drops));
    table.push("early_drops", stat(&|c| c.early_drops()));
    table.push("aqm_drops", stat(&|c| c.stats.aqm_drops));
    table.push("wire_losses", stat(&|c| c.stats.wire_losses));
    table.push("ecn_marks", stat(&|c| c.stats.ecn_marks));
    table.push("queued_packets", stat(&|c| c.queued().0));
    table.push("max_queue_packets", stat(&|c| c.stats.max_queue_packets));
    table.push("max_queue_bytes", stat(&|c| c.stats.max_queue_bytes));
    table.push("queue_delay_mean_ms", float(&mean_queue_delay_ms));
    let quantiles: Vec<[f64; 3]> = channels.iter().map(|c| c.stats.sojourn.quantiles_ms([0.5, 0.95, 0.99])).collect();
    for (column, name) in ["queue_delay_p50_ms", "queue_delay_p95_ms", "queue_delay_p99_ms"].into_iter().enumerate() {
        table.push(name, Column::F64(quantiles.iter().map(|q| q[column]).collect()));
    }
    table
}

fn mean_queue_delay_ms(channel: &Channel) -> f64 {
    channel.stats.sojourn.mean_ms()
}
