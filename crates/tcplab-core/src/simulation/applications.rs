//! Application events: a TCP flow's start, its on/off toggles, rate-limited writes and restarts
//! (a closed loop of transfers, each on a new connection), and a UDP source's toggles and
//! datagrams. `traffic` decides when an application is active and how long
//! its periods are; these handlers schedule the events that follow and hand data to the transport.

use rand::Rng;

use super::flows::connection_endpoints;
use super::Simulation;
use crate::cc;
use crate::sim::{Event, NextHop};
use crate::tcp::EndpointContext;
use crate::time::transmission_time;
use crate::traffic::udp;

impl Simulation {
    pub(super) fn start_tcp_flow(&mut self, flow: usize) {
        let now = self.events.now();
        if self.tcp[flow].app.stopped(now) {
            return;
        }
        if self.tcp[flow].restart.is_some() {
            self.tcp[flow].sender.stats.events.push((now, "transfer_start"));
        }
        self.activate_tcp_app(flow);
        let app = &mut self.tcp[flow].app;
        if let Some(stop) = app.stop {
            self.events.schedule(stop, Event::AppToggle { flow: flow as u32 });
        }
        if let Some(on) = app.next_on_period() {
            self.events.schedule(now + on, Event::AppToggle { flow: flow as u32 });
        }
    }

    /// A restarting flow's receiver may just have received its transfer's last byte: note it and
    /// schedule the next connection after the think time.
    pub(super) fn check_transfer_complete(&mut self, flow: usize) {
        let now = self.events.now();
        let f = &mut self.tcp[flow];
        let (Some(restart), Some(size)) = (f.restart.as_mut(), f.size) else { return };
        if restart.pending || f.receiver.rcv_nxt() < size {
            return;
        }
        restart.pending = true;
        f.sender.stats.events.push((now, "transfer_complete"));
        let next = now + restart.think_time;
        if !f.app.stopped(next) {
            self.events.schedule(next, Event::FlowRestart { flow: flow as u32 });
        }
    }

    /// The next transfer of a restarting flow, on a new connection: a fresh algorithm, sender
    /// and receiver (the flow's counters carry on); the old connection's packets still in the
    /// network are discarded when they arrive.
    pub(super) fn restart_tcp_flow(&mut self, flow: usize) {
        let now = self.events.now();
        let f = &mut self.tcp[flow];
        let (Some(restart), Some(size)) = (f.restart.as_mut(), f.size) else { return };
        let info = cc::ConnectionInfo { seed: restart.rng.next_u64(), ..restart.info };
        let controller = match cc::create(&self.tcp_labels[flow].algorithm, &restart.params, info) {
            Ok(controller) => controller,
            Err(why) => {
                restart.failure = Some(why);
                return;
            }
        };
        restart.pending = false;
        let (mut sender, mut receiver) =
            connection_endpoints(flow as u32, (f.source, f.sink), &restart.config, controller, Some(size));
        sender.stats = std::mem::take(&mut f.sender.stats);
        sender.rtt.set_clock_phase(f.sender.rtt.clock_phase());
        sender.stats.all_acknowledged_at = None;
        sender.stats.events.push((now, "transfer_start"));
        receiver.stats = std::mem::take(&mut f.receiver.stats);
        f.sender = sender;
        f.receiver = receiver;
        f.connection = f.connection.wrapping_add(1);
        self.activate_tcp_app(flow);
    }

    fn activate_tcp_app(&mut self, flow: usize) {
        let f = &mut self.tcp[flow];
        f.app.active = true;
        match f.app.rate {
            Some(_) => {
                if !f.app.write_pending {
                    f.app.write_pending = true;
                    self.events.schedule(self.events.now(), Event::AppWrite { flow: flow as u32 });
                }
            }
            None => {
                f.sender
                    .app_write(u64::MAX, &mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
                let node = f.source;
                self.flush(node);
            }
        }
    }

    pub(super) fn toggle_tcp_app(&mut self, flow: usize) {
        let now = self.events.now();
        let f = &mut self.tcp[flow];
        if f.app.stopped(now) || f.app.active {
            f.app.active = false;
            if f.app.stopped(now) || !f.app.keeps_unsent() {
                f.sender.app_pause();
            }
            if !f.app.stopped(now) {
                if let Some(off) = f.app.next_off_period() {
                    self.events.schedule(now + off, Event::AppToggle { flow: flow as u32 });
                }
            }
        } else {
            self.activate_tcp_app(flow);
            if let Some(on) = self.tcp[flow].app.next_on_period() {
                self.events.schedule(now + on, Event::AppToggle { flow: flow as u32 });
            }
        }
    }

    /// A rate-limited application writes one segment and schedules its next write.
    pub(super) fn tcp_app_write(&mut self, flow: usize) {
        let f = &mut self.tcp[flow];
        f.app.write_pending = false;
        if !f.app.active {
            return;
        }
        let rate = f.app.rate.expect("only rate-limited applications schedule writes");
        let chunk = f.sender.mss();
        f.sender.app_write(chunk, &mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
        f.app.write_pending = true;
        self.events.schedule(self.events.now() + transmission_time(chunk, rate), Event::AppWrite { flow: flow as u32 });
        let node = f.source;
        self.flush(node);
    }

    pub(super) fn toggle_udp(&mut self, source: usize) {
        let now = self.events.now();
        let f = &mut self.udp[source];
        let first_start = !f.app.active && f.stats.sent_packets == 0 && now == f.app.start;
        if f.app.active || f.app.stopped(now) {
            f.app.active = false;
            if !f.app.stopped(now) {
                if let Some(off) = f.app.next_off_period() {
                    self.events.schedule(now + off, Event::UdpToggle { source: source as u32 });
                }
            }
            return;
        }
        f.app.active = true;
        if !f.app.write_pending {
            f.app.write_pending = true;
            self.events.schedule(now, Event::UdpSend { source: source as u32 });
        }
        if let Some(on) = f.app.next_on_period() {
            self.events.schedule(now + on, Event::UdpToggle { source: source as u32 });
        }
        if first_start {
            if let Some(stop) = f.app.stop {
                self.events.schedule(stop, Event::UdpToggle { source: source as u32 });
            }
        }
    }

    /// A UDP source sends one datagram and schedules the next one at its constant bit rate.
    pub(super) fn udp_send(&mut self, source: usize) {
        let now = self.events.now();
        let f = &mut self.udp[source];
        f.app.write_pending = false;
        if !f.app.active || f.app.stopped(now) {
            return;
        }
        let rate = f.app.rate.expect("validated: UDP flows have a rate");
        let mut packet = udp::datagram(source as u32, f.sink, f.packet_bytes, now);
        packet.destination_route = self.network.destination_route(f.sink);
        f.stats.record_sent(&packet);
        f.app.write_pending = true;
        self.events.schedule(now + transmission_time(f.packet_bytes, rate), Event::UdpSend { source: source as u32 });
        let node = f.source;
        let id = self.pool.insert(packet);
        self.forward(node, id, NextHop::UNKNOWN);
    }
}
