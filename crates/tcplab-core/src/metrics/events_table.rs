//! The events algorithms reported (RTA's mode switches, ROCCET's congestion events), in time order.

use crate::results::{Column, Table};
use crate::time::{as_secs_f64, SimTime};

/// One reported event.
pub struct ReportedEvent {
    pub time: SimTime,
    pub flow_id: u64,
    pub name: String,
    pub event: &'static str,
}

/// Columns time_s, flow_id, name, event; ordered by time, then flow (ties keep report order).
pub fn events_table(events: Vec<ReportedEvent>) -> Table {
    let mut rows: Vec<(f64, u64, String, String)> =
        events.into_iter().map(|e| (as_secs_f64(e.time), e.flow_id, e.name, e.event.to_string())).collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut table = Table::default();
    table.push("time_s", Column::F64(rows.iter().map(|r| r.0).collect()));
    table.push("flow_id", Column::U64(rows.iter().map(|r| r.1).collect()));
    table.push("name", Column::Str(rows.iter().map(|r| r.2.clone()).collect()));
    table.push("event", Column::Str(rows.iter().map(|r| r.3.clone()).collect()));
    table
}
