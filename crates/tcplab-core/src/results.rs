//! Results as named columns, the shape every front end (Python, Parquet, tests) consumes.

use std::collections::HashMap;

/// One column of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    /// Text from a small set of values (a link's name, an algorithm's state), stored once each:
    /// row `i` reads `labels[codes[i]]`. Time series have hundreds of thousands of rows but only
    /// a few distinct names; front ends turn this into ordinary text.
    Labels {
        labels: Vec<String>,
        codes: Vec<u32>,
    },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Labels { codes, .. } => codes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A labels column of `rows`' texts, each distinct text coded in order of first use.
    pub fn labels_of<'a>(rows: impl ExactSizeIterator<Item = &'a str>) -> Column {
        let (labels, codes) = label_codes(rows);
        Column::Labels { labels, codes }
    }
}

/// Each distinct text of `rows` once, in order of first use, and each row's code into them.
pub fn label_codes<'a>(rows: impl ExactSizeIterator<Item = &'a str>) -> (Vec<String>, Vec<u32>) {
    let mut codes_of: HashMap<&str, u32> = HashMap::new();
    let mut labels = Vec::new();
    let mut codes = Vec::with_capacity(rows.len());
    for text in rows {
        let code = *codes_of.entry(text).or_insert_with(|| {
            labels.push(text.to_string());
            (labels.len() - 1) as u32
        });
        codes.push(code);
    }
    (labels, codes)
}

/// Named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, column: Column) {
        debug_assert!(
            self.columns.first().is_none_or(|(_, c)| c.len() == column.len()),
            "column {name} has a different length"
        );
        self.columns.push((name.to_string(), column));
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    pub fn f64(&self, name: &str) -> &[f64] {
        match self.column(name) {
            Some(Column::F64(v)) => v,
            other => panic!("column {name} is not f64: {other:?}"),
        }
    }

    pub fn u64(&self, name: &str) -> &[u64] {
        match self.column(name) {
            Some(Column::U64(v)) => v,
            other => panic!("column {name} is not u64: {other:?}"),
        }
    }

    /// A text column (plain or labels), row by row.
    pub fn text(&self, name: &str) -> Vec<&str> {
        match self.column(name) {
            Some(Column::Str(v)) => v.iter().map(String::as_str).collect(),
            Some(Column::Labels { labels, codes }) => codes.iter().map(|&c| labels[c as usize].as_str()).collect(),
            other => panic!("column {name} is not a text column: {other:?}"),
        }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

/// Scalars describing a whole run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub run: u64,
    pub simulated_seconds: f64,
    pub events: u64,
    pub packets_transmitted: u64,
    /// Jain's fairness index over the goodputs of TCP flows that transferred data.
    pub jain_fairness: f64,
    pub total_goodput_bps: f64,
    /// The most packets alive at once (the packet pool's high-water mark).
    pub peak_live_packets: u64,
}

/// Everything a run produces.
#[derive(Clone, Debug, Default)]
pub struct Results {
    pub summary: Summary,
    pub flows: Table,
    pub links: Table,
    /// Per-flow time series (TCP and UDP), one row per flow per sample.
    pub flow_series: Table,
    /// Per-channel queue time series, one row per link direction per sample.
    pub queue_series: Table,
    /// Events algorithms reported (mode switches and the like): time, flow, event name.
    pub events: Table,
    /// `simulation.capture`: pcap files by name ("bottleneck-forward.pcap").
    pub captures: Vec<(String, Vec<u8>)>,
}
