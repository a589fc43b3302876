//! The queue disciplines a scenario names, and which `queue` keys each takes: one table that
//! validation (a key set for another kind) and error messages (an unknown key) both read.

use super::model::QueueKind;

impl QueueKind {
    pub const ALL: [QueueKind; 6] =
        [QueueKind::DropTail, QueueKind::Red, QueueKind::Codel, QueueKind::FqCodel, QueueKind::Pie, QueueKind::Step];

    /// The scenario's name for the kind (`queue.kind`).
    pub fn name(self) -> &'static str {
        match self {
            QueueKind::DropTail => "droptail",
            QueueKind::Red => "red",
            QueueKind::Codel => "codel",
            QueueKind::FqCodel => "fq_codel",
            QueueKind::Pie => "pie",
            QueueKind::Step => "step",
        }
    }

    /// The kinds that take a `queue` key (every kind takes `kind`); none for an unknown key.
    pub fn taking(key: &str) -> &'static [QueueKind] {
        use QueueKind::*;
        match key {
            "kind" => &QueueKind::ALL,
            "min_th" | "max_th" | "w_q" | "max_p" | "gentle" | "wait" | "byte_mode" | "idle_decay"
            | "mean_packet_size" | "mark_p" => &[Red],
            "ecn" => &[Red, Codel, FqCodel, Pie],
            "target" => &[Codel, FqCodel, Pie],
            "interval" => &[Codel, FqCodel],
            "flows" | "quantum" => &[FqCodel],
            "tupdate" | "alpha" | "beta" | "max_burst" | "derandomize" => &[Pie],
            "threshold" => &[Step],
            _ => &[],
        }
    }

    /// The keys a queue of this kind takes, `kind` first.
    pub fn keys(self) -> Vec<&'static str> {
        QUEUE_KEYS.iter().copied().filter(|key| QueueKind::taking(key).contains(&self)).collect()
    }
}

/// Every key of a `queue` table, in the order messages list them.
const QUEUE_KEYS: &[&str] = &[
    "kind",
    "min_th",
    "max_th",
    "w_q",
    "max_p",
    "gentle",
    "wait",
    "byte_mode",
    "idle_decay",
    "mean_packet_size",
    "mark_p",
    "ecn",
    "target",
    "interval",
    "flows",
    "quantum",
    "tupdate",
    "alpha",
    "beta",
    "max_burst",
    "derandomize",
    "threshold",
];
