//! The one error type of the scenario layer: the dotted key that is wrong and what is wrong with it.

use std::fmt;

/// A scenario problem: the dotted path of the key and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub key: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self { key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Turns a serde error with a path into a scenario error naming the key.
pub(crate) fn path_error<E>(error: serde_path_to_error::Error<E>, message_of: impl Fn(&E) -> String) -> ScenarioError {
    let key = error.path().to_string();
    let key = if key == "." { String::new() } else { key };
    let message = message_of(error.inner()).trim().to_string();
    // serde reports a missing key at the table that lacks it; name the key itself.
    if let Some(field) = message.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`')) {
        let full = if key.is_empty() { field.to_string() } else { format!("{key}.{field}") };
        return ScenarioError::new(full, "is required");
    }
    ScenarioError::new(key, message)
}
