//! The one error type of the scenario layer: the dotted key that is wrong and what is wrong with it.

use std::fmt;

/// A scenario problem: the dotted path of the key and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub key: String,
    pub message: String,
}

impl ScenarioError {
    /// Keys (and keys quoted in the message) are written as `--set` writes them: list positions
    /// as dotted numbers, `flows.4.cc`, never `flows[4].cc`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self { key: dotted(&key.into()), message: dotted(&message.into()) }
    }
}

/// `flows[4].cc` as `flows.4.cc`: every `[digits]` right after a name character becomes
/// `.digits`. Other brackets (`(0, 1]`, `[a, b]`) are left as they are.
pub fn dotted(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let after_name = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if bytes[i] == b'[' && after_name {
            let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && bytes.get(i + 1 + digits) == Some(&b']') {
                out.push('.');
                out.push_str(&text[i + 1..i + 1 + digits]);
                i += digits + 2;
                continue;
            }
        }
        let c = text[i..].chars().next().expect("i is on a character boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
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
    ScenarioError::new(key, suggest_in_serde_message(message))
}

/// The candidate closest to a mistyped name, if one is close enough to be what was meant: at most
/// a third of the name's characters edited (at least one), ignoring case, as `cargo` and `git`
/// suggest commands.
pub(crate) fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = name.to_lowercase();
    let budget = (wanted.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|candidate| (strsim::levenshtein(&wanted, &candidate.to_lowercase()), candidate))
        .filter(|&(distance, _)| distance <= budget)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// serde's "unknown field `x`, expected one of `a`, `b`" (and "unknown variant") with the
/// closest expected name suggested.
fn suggest_in_serde_message(message: String) -> String {
    let Some(rest) = message.strip_prefix("unknown field `").or_else(|| message.strip_prefix("unknown variant `"))
    else {
        return message;
    };
    let Some((name, expected)) = rest.split_once('`') else {
        return message;
    };
    let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    match did_you_mean(name, candidates) {
        Some(closest) => format!("{message}; did you mean `{closest}`?"),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_positions_are_written_as_set_writes_them() {
        assert_eq!(dotted("flows[4].cc"), "flows.4.cc");
        assert_eq!(dotted("topology.hops[1].forward.outages[0].at"), "topology.hops.1.forward.outages.0.at");
        assert_eq!(dotted("0.5 is outside (0, 1]; [a, b] stays"), "0.5 is outside (0, 1]; [a, b] stays");
        assert_eq!(
            ScenarioError::new("flows[0].cc", "see flows[1].start").to_string(),
            "flows.0.cc: see flows.1.start"
        );
    }
}
