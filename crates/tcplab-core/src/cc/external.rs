//! Algorithms defined outside this crate, such as Python classes that the Python binding runs.
//!
//! The core cannot create them itself (it has no Python), so whoever embeds it installs one
//! [`ExternalAlgorithms`] for the process: the registry consults it for names it does not know.
//! Process-wide like the built-in registry, because validation and the simulation build both need
//! it and neither is handed anything but the scenario; it is installed once and never replaced.

use std::sync::OnceLock;

use serde_json::Value;

use super::{CongestionControl, ConnectionInfo};

/// A source of algorithms the built-in registry does not have.
pub trait ExternalAlgorithms: Send + Sync {
    /// Whether `name` is of this source's form (it may still fail to resolve).
    fn knows(&self, name: &str) -> bool;
    /// Whether `name` resolves to an algorithm (a Python module and class that import), or why not.
    fn resolve(&self, name: &str) -> Result<(), String>;
    /// An instance for one connection, or an error message saying what is wrong.
    fn create(&self, name: &str, params: &Value, info: ConnectionInfo) -> Result<Box<dyn CongestionControl>, String>;
    /// How such names look, for error messages ("python:package.module:Class").
    fn name_form(&self) -> &'static str;
}

static EXTERNAL: OnceLock<Box<dyn ExternalAlgorithms>> = OnceLock::new();

/// Installs the process's external algorithms; false if some were installed already.
pub fn install(source: Box<dyn ExternalAlgorithms>) -> bool {
    EXTERNAL.set(source).is_ok()
}

pub(super) fn installed() -> Option<&'static dyn ExternalAlgorithms> {
    EXTERNAL.get().map(|source| source.as_ref())
}
