//! What the simulation measures: a sample of every flow and queue each `sample_interval`, and at
//! the end the results tables, built by `metrics` from the flows' and channels' counters.

use super::flows::{TcpFlow, TcpFlowLabel, UdpFlow};
use super::Simulation;
use crate::capture::{pcap_bytes, FlowEndpoints};
use crate::metrics::{
    events_table, flow_table, jain_index, link_table, FlowRow, FlowSample, QueueSample, ReportedEvent, TimeSeries,
};
use crate::net::topology::Network;
use crate::results::{Results, Summary, Table};
use crate::scenario::SeriesKind;
use crate::time::{as_millis_f64, as_secs_f64, SimDuration, SimTime};

/// The results read from the link directions, built before a finished run frees them.
struct LinkResults {
    links: Table,
    packets_transmitted: u64,
    flow_series: Table,
    queue_series: Table,
    captures: Vec<(String, Vec<u8>)>,
}

/// One queue time-series row per link direction at `now`, once the links' counters are brought to
/// `now` (`Network::catch_up`). `transmitted_at_last_sample` holds each channel's transmitted
/// bytes at the previous sample (grown to the number of channels here). The simulator and the
/// Linux back-end's link emulator sample their links with this one function.
pub fn sample_queues(
    network: &mut Network,
    now: SimTime,
    interval: SimDuration,
    transmitted_at_last_sample: &mut Vec<u64>,
    series: &mut TimeSeries,
) {
    // Bytes transmitted since the previous sample; the sample at time 0 has no interval.
    let rate = |bytes: u64| if now == 0 { 0.0 } else { bytes as f64 * 8.0 / as_secs_f64(interval) };
    network.catch_up(now);
    transmitted_at_last_sample.resize(network.channels.len(), 0);
    for (index, channel) in network.channels.iter().enumerate() {
        let transmitted = channel.stats.transmitted_bytes;
        let (packets, bytes) = channel.queued();
        series.push_queue(QueueSample {
            time_s: as_secs_f64(now),
            channel: index as u32,
            packets,
            bytes,
            throughput_bps: rate(transmitted - transmitted_at_last_sample[index]),
        });
        transmitted_at_last_sample[index] = transmitted;
    }
}

/// The state of a flow sampled before its application starts.
const NOT_STARTED: &str = "not_started";

impl Simulation {
    /// One time-series row per flow and per link direction, for the series the scenario keeps
    /// (`simulation.time_series`). The sample is taken either way, so that a run's events, and
    /// its other results, are the same with or without the series.
    pub(super) fn sample(&mut self) {
        let kept = &self.scenario.simulation.time_series;
        let (flows, queues) = (kept.contains(&SeriesKind::Flows), kept.contains(&SeriesKind::Queues));
        if flows {
            self.sample_flows();
        }
        if queues {
            sample_queues(
                &mut self.network,
                self.events.now(),
                self.sample_interval,
                &mut self.transmitted_at_last_sample,
                &mut self.series,
            );
        }
    }

    /// One time-series row per flow.
    fn sample_flows(&mut self) {
        let now = self.events.now();
        let seconds = as_secs_f64(now);
        let interval = as_secs_f64(self.sample_interval);
        // Payload delivered since the previous sample; the sample at time 0 has no interval.
        let rate = |bytes: u64| if now == 0 { 0.0 } else { bytes as f64 * 8.0 / interval };
        for (f, label) in self.tcp.iter_mut().zip(&self.tcp_labels) {
            let delivered = f.receiver.stats.delivered_bytes;
            let ssthresh = f.sender.cc.ssthresh();
            // A flow that has not started has no window yet: NaN keeps it off the plots.
            let started = now >= f.app.start;
            let if_started = |value: f64| if started { value } else { f64::NAN };
            self.series.push_flow(FlowSample {
                time_s: seconds,
                flow_id: label.id as u64,
                cwnd_bytes: if_started(f.sender.effective_cwnd() as f64),
                ssthresh_bytes: if ssthresh == u64::MAX { f64::NAN } else { if_started(ssthresh as f64) },
                srtt_ms: f.sender.rtt.srtt.map_or(f64::NAN, as_millis_f64),
                in_flight_bytes: if_started(f.sender.bytes_in_flight() as f64),
                delivery_rate_bps: f.sender.stats.latest_delivery_rate_bps.map_or(f64::NAN, |rate| rate as f64),
                throughput_bps: rate(delivered - f.delivered_at_last_sample),
                state: if !started {
                    NOT_STARTED
                } else if f.sender.is_in_recovery() {
                    "recovery"
                } else {
                    f.sender.cc.state_name()
                },
            });
            f.delivered_at_last_sample = delivered;
        }
        for f in &mut self.udp {
            let received = f.stats.received_bytes;
            self.series.push_flow(FlowSample {
                time_s: seconds,
                flow_id: f.id as u64,
                cwnd_bytes: f64::NAN,
                ssthresh_bytes: f64::NAN,
                srtt_ms: f64::NAN,
                in_flight_bytes: f64::NAN,
                delivery_rate_bps: f64::NAN,
                throughput_bps: rate(received - f.received_at_last_sample),
                state: if now < f.app.start {
                    NOT_STARTED
                } else if f.app.active {
                    "on"
                } else {
                    "off"
                },
            });
            f.received_at_last_sample = received;
        }
    }

    /// The results tables as of now, leaving the simulation as it is (a run can go on). Not after
    /// `take_results` at the end of a run, which frees what they are read from.
    pub fn results(&self) -> Results {
        assert!(!self.network.channels.is_empty(), "results() after take_results(): the run's links are freed");
        let links = self.link_results(self.series.clone());
        self.results_with(links, self.pool.capacity())
    }

    /// The results at the end of a run. They take the time series' columns without a copy, so a
    /// later call finds the series empty: call it once, when the run is over.
    pub fn take_results(&mut self) -> Results {
        let series = std::mem::take(&mut self.series);
        let peak_live_packets = self.pool.capacity();
        let finished = self.is_finished();
        if finished {
            self.free_what_only_running_needs();
        }
        let links = self.link_results(series);
        if finished {
            // The link directions' results are built and nothing else reads the directions. At
            // 10,000 flows (the scale benchmark's `huge` size) their 12.8 MB were alive while the
            // flows' table was built, which set the run's peak RSS: 73.8 MB, where running took
            // 66 MB; freed first, 70.1 MB.
            self.network.channels = Vec::new();
        }
        self.results_with(links, peak_live_packets)
    }

    /// Frees the packets, the pending events and the senders' scoreboards, which no result reads,
    /// so that the results tables can reuse their room: at 10,000 flows (the scale benchmark's
    /// `huge` size) building the tables had raised the peak RSS from 96 MB, reached while
    /// running, to 111 MB; with this, to 105 MB. Only at the end of a run, which cannot go on
    /// without them.
    fn free_what_only_running_needs(&mut self) {
        self.pool.free_slots();
        self.events.free_pending();
        for flow in &mut self.tcp {
            flow.sender.free_scoreboard();
        }
    }

    /// What the results read from the link directions: their table, the packets they sent, the
    /// time series (the queue series are labelled by link) and the captures.
    fn link_results(&self, series: TimeSeries) -> LinkResults {
        let (flow_series, queue_series) = series.into_tables(&self.network);
        LinkResults {
            links: link_table(&self.network, self.events.now().max(1)),
            packets_transmitted: self.network.channels.iter().map(|c| c.stats.transmitted_packets).sum(),
            flow_series,
            queue_series,
            captures: self.captures(),
        }
    }

    fn results_with(&self, links: LinkResults, peak_live_packets: usize) -> Results {
        let duration = self.events.now().max(1);
        let tcp_rows: Vec<FlowRow> = self
            .tcp
            .iter()
            .zip(&self.tcp_labels)
            .zip(0..)
            .map(|(f, index)| self.tcp_flow_row(index, f, duration))
            .collect();
        // Jain's index over the TCP flows that had started.
        let goodputs: Vec<f64> = self
            .tcp
            .iter()
            .zip(&tcp_rows)
            .filter(|(f, _)| f.app.start < duration)
            .map(|(_, r)| r.goodput_bps)
            .collect();
        let udp_rows = self.udp.iter().enumerate().map(|(index, f)| self.udp_flow_row(index as u32, f, duration));
        let events = self.tcp.iter().zip(&self.tcp_labels).flat_map(|(f, label)| {
            f.sender.stats.events.iter().map(|&(time, event)| ReportedEvent {
                time,
                flow_id: label.id as u64,
                name: label.name.clone(),
                event,
            })
        });
        Results {
            events: events_table(events.collect()),
            summary: Summary {
                scenario: self.scenario.name.clone(),
                seed: self.scenario.simulation.seed,
                run: self.scenario.simulation.run,
                simulated_seconds: as_secs_f64(duration),
                events: self.events.processed(),
                packets_transmitted: links.packets_transmitted,
                jain_fairness: jain_index(&goodputs),
                total_goodput_bps: goodputs.iter().sum(),
                peak_live_packets: peak_live_packets as u64,
            },
            flows: flow_table(tcp_rows.into_iter().chain(udp_rows).collect()),
            links: links.links,
            flow_series: links.flow_series,
            queue_series: links.queue_series,
            captures: links.captures,
        }
    }

    /// A pcap file per captured link direction (see `capture.rs`).
    fn captures(&self) -> Vec<(String, Vec<u8>)> {
        let endpoints = FlowEndpoints {
            tcp: self.tcp.iter().map(|f| (f.source, f.sink)).collect(),
            udp: self.udp.iter().map(|f| (f.source, f.sink)).collect(),
        };
        self.network
            .channels
            .iter()
            .zip(self.network.channel_labels())
            .filter_map(|(channel, (link, direction))| {
                let packets = channel.captured()?;
                Some((format!("{link}-{direction}.pcap"), pcap_bytes(packets, &endpoints)))
            })
            .collect()
    }

    /// `index` is the flow's place among the TCP flows, which its packets carry.
    fn tcp_flow_row(&self, index: u32, (f, label): (&TcpFlow, &TcpFlowLabel), duration: SimDuration) -> FlowRow {
        let delivered = f.receiver.stats.delivered_bytes;
        // A restarting flow's size is per transfer: its transfers are in the events table.
        let complete = f.restart.is_none() && f.size.is_some_and(|size| delivered >= size);
        let end = if complete { f.receiver.stats.last_delivery_at } else { duration };
        let active = end.saturating_sub(f.app.start).max(1);
        let stats = &f.sender.stats;
        let [rtt_p50_ms, rtt_p95_ms, rtt_p99_ms] = stats.rtt.quantiles_ms([0.5, 0.95, 0.99]);
        let [one_way_delay_p50_ms, one_way_delay_p95_ms] = f.receiver.stats.one_way_delay.quantiles_ms([0.5, 0.95]);
        FlowRow {
            packet_payload_bytes: f.sender.mss(),
            size_bytes: f.size.map_or(f64::NAN, |s| s as f64),
            bytes_delivered: delivered,
            goodput_bps: delivered as f64 * 8.0 / as_secs_f64(active),
            bytes_sent: stats.bytes_sent,
            throughput_bps: stats.bytes_sent as f64 * 8.0 / as_secs_f64(active),
            packets_sent: stats.segments_sent,
            retransmitted_segments: stats.retransmitted_segments,
            retransmitted_bytes: stats.retransmitted_bytes,
            timeouts: stats.timeouts,
            timeouts_after_loss: stats.timeouts_after_loss,
            fast_recoveries: stats.fast_recoveries,
            ecn_reductions: stats.ecn_reductions,
            rtt_mean_ms: stats.rtt.mean_ms(),
            rtt_min_ms: f.sender.rtt.min_rtt.map_or(f64::NAN, as_millis_f64),
            rtt_p50_ms,
            rtt_p95_ms,
            rtt_p99_ms,
            completion_time_s: if complete { as_secs_f64(end - f.app.start) } else { f64::NAN },
            duplicate_bytes: f.receiver.stats.duplicate_bytes,
            packets_lost: self.pool.tcp_data_discarded(index),
            loss_ratio: ratio(self.pool.tcp_data_discarded(index), stats.segments_sent),
            one_way_delay_mean_ms: f.receiver.stats.one_way_delay.mean_ms(),
            one_way_delay_p50_ms,
            one_way_delay_p95_ms,
            ..self.identity_row(
                label.id,
                &label.name,
                "tcp",
                &label.algorithm,
                (f.source, f.sink),
                f.app.start,
                label.base_rtt,
            )
        }
    }

    fn udp_flow_row(&self, index: u32, f: &UdpFlow, duration: SimDuration) -> FlowRow {
        let active = duration.saturating_sub(f.app.start).max(1);
        let [one_way_delay_p50_ms, one_way_delay_p95_ms] = f.stats.one_way_delay.quantiles_ms([0.5, 0.95]);
        FlowRow {
            packet_payload_bytes: f.packet_bytes,
            bytes_delivered: f.stats.received_bytes,
            goodput_bps: f.stats.received_bytes as f64 * 8.0 / as_secs_f64(active),
            bytes_sent: f.stats.sent_bytes,
            throughput_bps: f.stats.sent_bytes as f64 * 8.0 / as_secs_f64(active),
            packets_sent: f.stats.sent_packets,
            packets_lost: self.pool.udp_discarded(index),
            loss_ratio: ratio(self.pool.udp_discarded(index), f.stats.sent_packets),
            one_way_delay_mean_ms: f.stats.one_way_delay.mean_ms(),
            one_way_delay_p50_ms,
            one_way_delay_p95_ms,
            jitter_ms: f.stats.jitter_ms(),
            ..self.identity_row(f.id, &f.name, "udp", "", (f.source, f.sink), f.app.start, f.base_rtt)
        }
    }

    /// A row with the flow's identity filled in and every measurement empty (0 or NaN).
    #[allow(clippy::too_many_arguments)]
    fn identity_row(
        &self,
        id: usize,
        name: &str,
        protocol: &'static str,
        cc: &str,
        (source, sink): (u32, u32),
        start: SimTime,
        base_rtt: SimDuration,
    ) -> FlowRow {
        let node_name = |node: u32| self.network.nodes[node as usize].name.clone();
        FlowRow {
            flow_id: id as u64,
            name: name.to_string(),
            protocol,
            cc: cc.to_string(),
            source: node_name(source),
            destination: node_name(sink),
            start_s: as_secs_f64(start),
            base_rtt_ms: as_millis_f64(base_rtt),
            packet_payload_bytes: 0,
            size_bytes: f64::NAN,
            bytes_delivered: 0,
            goodput_bps: f64::NAN,
            bytes_sent: 0,
            throughput_bps: f64::NAN,
            packets_sent: 0,
            retransmitted_segments: 0,
            retransmitted_bytes: 0,
            timeouts: 0,
            timeouts_after_loss: 0,
            fast_recoveries: 0,
            ecn_reductions: 0,
            rtt_mean_ms: f64::NAN,
            rtt_min_ms: f64::NAN,
            rtt_p50_ms: f64::NAN,
            rtt_p95_ms: f64::NAN,
            rtt_p99_ms: f64::NAN,
            completion_time_s: f64::NAN,
            duplicate_bytes: 0,
            packets_lost: 0,
            loss_ratio: f64::NAN,
            one_way_delay_mean_ms: f64::NAN,
            one_way_delay_p50_ms: f64::NAN,
            one_way_delay_p95_ms: f64::NAN,
            jitter_ms: f64::NAN,
        }
    }
}

/// `part / whole`, NaN when nothing was sent.
fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        f64::NAN
    } else {
        part as f64 / whole as f64
    }
}
