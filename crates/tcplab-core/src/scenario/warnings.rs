//! Scenarios that are valid but probably not what their author meant: they run, and the front
//! ends show each warning (key and reason) before the results.

use super::error::dotted;
use super::model::Scenario;
use crate::tcp::AckDelayMode;

/// A key whose value is allowed but suspicious, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioWarning {
    pub key: String,
    pub message: String,
}

impl Scenario {
    /// What in this (valid) scenario is probably a mistake.
    pub fn warnings(&self) -> Vec<ScenarioWarning> {
        let mut warnings = Vec::new();
        let duration = self.simulation.duration;
        for (index, flow) in self.flows.iter().enumerate() {
            if flow.start >= duration {
                warnings.push(ScenarioWarning {
                    key: format!("flows[{index}].start"),
                    message: format!(
                        "{} is not before the end of the run ({duration}): the flow never starts",
                        flow.start
                    ),
                });
            }
        }
        let exact_rdc = |mode: Option<AckDelayMode>| mode == Some(AckDelayMode::ExactRdc);
        let uses_exact_rdc = exact_rdc(self.tcp.ack_delay)
            || self.flows.iter().any(|f| f.tcp.as_ref().is_some_and(|tcp| exact_rdc(tcp.ack_delay)));
        if uses_exact_rdc && !self.links().any(|link| link.rdc_stamp) {
            warnings.push(ScenarioWarning {
                key: "tcp.ack_delay".to_string(),
                message: "exact_rdc holds ACKs for the delay routers stamp, but no link has rdc_stamp = true: \
                          no ACK will be delayed"
                    .to_string(),
            });
        }
        warnings.extend(self.set_up_warnings());
        for warning in &mut warnings {
            warning.key = dotted(&warning.key);
            warning.message = dotted(&warning.message);
        }
        warnings
    }
}
