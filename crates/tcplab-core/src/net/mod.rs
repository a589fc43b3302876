//! The network: packets, queues, directed channels (one per link direction), nodes and routing.

pub mod cellular_trace;
pub mod channel;
mod channel_features;
mod channel_queue;
pub mod codel;
pub mod delivery_trace;
pub mod fabric;
pub mod fq_codel;
pub mod packet;
pub mod pie;
pub mod queue;
pub mod red;
pub mod topology;
pub mod wire;
pub mod wire_queue;
