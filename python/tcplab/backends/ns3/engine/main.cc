// tcplab's ns-3 engine: one generic program, compiled once against the ns3 wheel (build.py),
// that runs the network a plan file describes (written by plan.py from the resolved scenario)
// and writes what tables.py turns into the simulator's tables (docs/ns3-backend.md).
// This file runs it: main, the periodic samples and the final report; plan.cc, network.cc,
// flows.cc and records.cc are its parts, engine.h what they share.
//
// Everything tcplab-specific (which TypeId, which attribute values) is decided in Python; this
// program only builds what the plan lists, with ns-3's own classes:
//   PointToPoint links, device DropTailQueue for drop-tail buffers, queue discs for AQMs above a
//   one-packet device queue, RateErrorModel for random loss, TcpSocketBase sockets with the
//   plan's congestion control and recovery, and three small applications of its own (a TCP
//   writer, a TCP reader, a UDP constant-bit-rate sender) so every socket gets its per-flow
//   attributes before it connects.
//
// Plan lines (whitespace-separated; times in ns, rates in bit/s, sizes in bytes):
//   simulation DURATION SAMPLE_INTERVAL SEED RUN
//   nodes COUNT
//   link A B DELAY_A_TO_B DELAY_B_TO_A RATE_A_TO_B RATE_B_TO_A FLOW_CONTROL
//                                                      (channels 2i: A->B, 2i+1: B->A)
//   delay_step CHANNEL AT NEW_DELAY
//   drift CHANNEL MIN MAX INTERVAL                     (an extra delay drifting in [MIN, MAX])
//   device_queue CHANNEL SIZE                          (ns-3 QueueSize text: "100p", "250000B")
//   queue_disc CHANNEL TYPEID Attr=Value...
//   loss CHANNEL PACKET_ERROR_RATE
//   tcp FLOW SOURCE SINK START STOP SIZE THINK RATE ON OFF EXPONENTIAL CC_TYPEID RECOVERY_TYPEID
//   udp FLOW SOURCE SINK START STOP RATE DATAGRAM ON OFF EXPONENTIAL
//   socket FLOW Attr=Value   /  sink FLOW Attr=Value  /  cc FLOW Attr=Value
// STOP, SIZE, THINK, ON and OFF are -1 when absent; RATE is 0 for an unlimited TCP writer.
//
// Output (in the directory given after the plan):
//   samples.txt: "F t flow cwnd ssthresh srtt_s in_flight delivered state" per TCP flow and
//     sample, "U t flow delivered" per UDP flow, "Q t channel packets bytes transmitted_bytes",
//     "E t flow event", and at the end "T flow ..." per TCP flow, "S flow sent lost" per UDP flow,
//     "L channel ..." per channel and "D channel what reason count" per drop or mark reason;
//   rtt-FLOW.f64: every RTT sample the flow's estimator was given, seconds as float64;
//   queue-delay-CHANNEL.f64: each transmitted packet's wait from arrival to transmission.
// Progress: "progress SECONDS" lines on standard error.

#include "engine.h"

#include <algorithm>
#include <cstdio>

using namespace tcplab;

namespace tcplab
{

const char*
StateName(TcpSocketState::TcpCongState_t state, uint32_t cwnd, uint32_t ssthresh)
{
    if (state == TcpSocketState::CA_RECOVERY || state == TcpSocketState::CA_LOSS ||
        state == TcpSocketState::CA_CWR)
    {
        return "recovery";
    }
    return cwnd < ssthresh ? "slow_start" : "congestion_avoidance";
}

// Every sample interval: each flow's window state and delivered bytes, each queue.
void
Sample(const Plan* plan)
{
    std::string now = Seconds9(Simulator::Now());
    for (const auto& flow : plan->flows)
    {
        const auto& record = g_flows[flow.id];
        if (!flow.tcp)
        {
            g_samples << "U " << now << " " << flow.id << " " << record.deliveredBytes << "\n";
            continue;
        }
        if (!record.tcb)
        {
            g_samples << "F " << now << " " << flow.id << " nan nan nan nan " << record.deliveredBytes
                      << " none\n";
            continue;
        }
        const auto& tcb = record.tcb;
        uint32_t ssthresh = tcb->m_ssThresh.Get();
        g_samples << "F " << now << " " << flow.id << " " << tcb->m_cWnd.Get() << " "
                  << (ssthresh == UINT32_MAX ? std::string("inf") : std::to_string(ssthresh)) << " "
                  << tcb->m_srtt.Get().GetSeconds() << " " << tcb->m_bytesInFlight.Get() << " "
                  << record.deliveredBytes << " "
                  << StateName(tcb->m_congState.Get(), tcb->m_cWnd.Get(), ssthresh) << "\n";
    }
    for (uint32_t channel = 0; channel < g_channels.size(); channel++)
    {
        const auto& monitor = g_channels[channel];
        g_samples << "Q " << now << " " << channel << " " << monitor.QueuedPackets() << " "
                  << monitor.QueuedBytes() << " " << monitor.transmittedBytes << "\n";
    }
    std::fprintf(stderr, "progress %s\n", now.c_str());
    std::fflush(stderr);
    if (Simulator::Now().GetNanoSeconds() + plan->sampleNs <= plan->durationNs)
    {
        Simulator::Schedule(NanoSeconds(plan->sampleNs), &Sample, plan);
    }
}

void
WriteDoubles(const std::string& path, const std::vector<double>& values)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
}

void
Report(const Plan& plan, const std::string& directory)
{
    for (const auto& flow : plan.flows)
    {
        const auto& record = g_flows[flow.id];
        if (flow.tcp)
        {
            g_samples << "T " << flow.id << " " << record.sentPackets << " " << record.sentBytes << " "
                      << record.retransmittedPackets << " " << record.retransmittedBytes << " "
                      << record.timeouts << " " << record.recoveries << " " << record.ecnReductions
                      << " " << record.lostPackets << " " << record.completedNs << " "
                      << record.deliveredBytes << "\n";
            WriteDoubles(directory + "/rtt-" + std::to_string(flow.id) + ".f64", record.rttSamples);
        }
        else
        {
            g_samples << "S " << flow.id << " " << record.sentPackets << " " << record.lostPackets << "\n";
        }
    }
    for (uint32_t channel = 0; channel < g_channels.size(); channel++)
    {
        const auto& monitor = g_channels[channel];
        g_samples << "L " << channel << " " << monitor.offered << " " << monitor.transmitted << " "
                  << monitor.transmittedBytes << " " << monitor.delivered << " " << monitor.wireLosses
                  << " " << monitor.QueuedPackets() << " " << monitor.maxPackets << " "
                  << monitor.maxBytes << "\n";
        for (const auto& [what, count] : monitor.reasons)
        {
            std::string reason = what.second;
            std::replace(reason.begin(), reason.end(), ' ', '_');
            g_samples << "D " << channel << " " << what.first << " " << reason << " " << count << "\n";
        }
        WriteDoubles(directory + "/queue-delay-" + std::to_string(channel) + ".f64", monitor.queueDelays);
    }
}

} // namespace tcplab

int
main(int argc, char* argv[])
{
    NS_ABORT_MSG_IF(argc != 3, "usage: tcplab-ns3 PLAN OUTPUT_DIRECTORY");
    Plan plan = ReadPlan(argv[1]);
    std::string directory = argv[2];
    g_samples.open(directory + "/samples.txt");
    g_samples.precision(9);
    RngSeedManager::SetSeed(plan.seed);
    RngSeedManager::SetRun(plan.run + 1);

    Network network = BuildNetwork(plan);
    // plan.py gives every link direction its buffer: each has an entry.
    NS_ABORT_MSG_IF(plan.queues.size() != g_channels.size(), "plan: a link direction has no device_queue line");
    for (const auto& [channel, queue] : plan.queues)
    {
        ConfigureChannel(channel, queue);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_flows.resize(plan.flows.size());
    InstallFlows(plan, network);
    Simulator::Schedule(NanoSeconds(plan.sampleNs), &Sample, &plan);
    Simulator::Stop(NanoSeconds(plan.durationNs));
    Simulator::Run();
    Report(plan, directory);
    g_samples.close();
    Simulator::Destroy();
    return 0;
}
