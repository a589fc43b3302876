//! Metrics: what a run measured, turned into the tables of [`crate::results::Results`].
//!
//! - `series.rs`: the time series sampled during the run (per flow and per link direction);
//! - `flow_table.rs`: one row per flow at the end of the run;
//! - `link_table.rs`: one row per link direction, from the channels' counters;
//! - `events_table.rs`: the events algorithms reported, in time order;
//! - `fairness.rs`: Jain's fairness index.
//!
//! The counters themselves (bytes, retransmissions, RTT and queueing-delay histograms) live with the
//! component that counts them (`tcp::sender::SenderStats`, `net::channel::ChannelStats`), since
//! they are updated on the hot path; this module only reads them.

mod events_table;
mod fairness;
mod flow_table;
mod link_table;
mod series;

pub use events_table::{events_table, ReportedEvent};
pub use fairness::jain_index;
pub use flow_table::{flow_table, FlowRow};
pub use link_table::link_table;
pub use series::{FlowSample, QueueSample, TimeSeries};
