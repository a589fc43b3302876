//! The network: packets, queues, directed channels (one per link direction), nodes and routing.

pub mod channel;
pub mod packet;
pub mod queue;
pub mod topology;
