//! Tables must be written as tables. serde accepts a sequence for a struct (its fields in order),
//! so `simulation = ["2s", 1]` would silently mean `duration = "2s", seed = 1`; this check, run
//! on the parsed document before deserialisation, refuses it with the key.

use serde_json::Value;

use super::error::ScenarioError;

/// Where the scenario has tables: `*` stands for every element of an array of tables.
const TABLES: &[&str] = &[
    "simulation",
    "topology",
    "tcp",
    "flows.*",
    "flows.*.tcp",
    "flows.*.params",
    "traffic.*",
    "traffic.*.tcp",
    "traffic.*.params",
    "topology.bottleneck",
    "topology.access",
    "topology.hops.*",
    "topology.links.*",
    "topology.edge_agg",
    "topology.agg_core",
    "topology.uplink",
];

/// What every link table may hold as tables (`queue` may also be the discipline's name alone).
const LINK_TABLES: &[&str] = &[
    "queue",
    "forward",
    "reverse",
    "forward.loss",
    "reverse.loss",
    "forward.jitter",
    "reverse.jitter",
    "forward.trace",
    "reverse.trace",
    "forward.trace.cellular",
    "reverse.trace.cellular",
];

pub(super) fn check_tables(document: &Value) -> Result<(), ScenarioError> {
    for pattern in TABLES {
        let path: Vec<&str> = pattern.split('.').collect();
        check_path(document, &path, "")?;
        if pattern.starts_with("topology.") {
            for inner in LINK_TABLES {
                let full: Vec<&str> = path.iter().copied().chain(inner.split('.')).collect();
                check_path(document, &full, "")?;
            }
        }
    }
    Ok(())
}

fn check_path(value: &Value, path: &[&str], key: &str) -> Result<(), ScenarioError> {
    let Some((first, rest)) = path.split_first() else {
        return match value {
            Value::Object(_) => Ok(()),
            Value::String(_) if key.ends_with(".queue") => Ok(()),
            other => {
                Err(ScenarioError::new(key, format!("must be a table ({{ key = value, ... }}), not {}", kind(other))))
            }
        };
    };
    match (*first, value) {
        ("*", Value::Array(items)) => {
            items.iter().enumerate().try_for_each(|(i, item)| check_path(item, rest, &format!("{key}[{i}]")))
        }
        ("*", _) => Ok(()), // not an array: deserialisation says so, with the key
        (name, Value::Object(table)) => match table.get(name) {
            Some(inner) => {
                check_path(inner, rest, &if key.is_empty() { name.to_string() } else { format!("{key}.{name}") })
            }
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "a table",
    }
}
