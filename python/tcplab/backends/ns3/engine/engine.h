// What the parts of tcplab's ns-3 engine share: the plan it reads, the records it keeps of each
// flow and link direction, and the functions one part calls in another. main.cc describes the
// engine as a whole.

#ifndef TCPLAB_NS3_ENGINE_H
#define TCPLAB_NS3_ENGINE_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

using namespace ns3;

namespace tcplab
{

// Each flow's sink listens on this port plus the flow's id, which is also how a dropped packet
// is traced back to its flow.
const uint16_t BASE_PORT = 5000;
// At most this much data waits in a sender's buffer unsent (bytes): more than a socket sends on
// one ACK, so the writer never holds the sender back.
const uint64_t UNSENT_BYTES = 1 << 18;
// IPv4 20 B + UDP 8 B: a UDP flow's datagram size is its IP packet's size (bytes).
const uint32_t UDP_IP_HEADER_BYTES = 28;
// A receiver takes at most this much from its socket per read (bytes).
const uint32_t READ_BYTES = 4096;

// ---------------------------------------------------------------------------------------------
// The plan (plan.cc reads it).

struct Attribute
{
    std::string name;
    std::string value;
};

struct LinkPlan
{
    uint32_t a, b;
    int64_t delayAtoB, delayBtoA;
    uint64_t rateAtoB, rateBtoA;
    // Queue discs need the device to stop and wake them (NetDeviceQueueInterface); a device
    // queue that is the buffer itself needs it off, or the traffic-control layer would drop
    // arrivals to a full device queue before the queue saw them.
    bool flowControl;
};

struct QueuePlan
{
    std::vector<std::pair<int64_t, int64_t>> delaySteps; // (time, new delay), ns
    int64_t driftMinNs = -1, driftMaxNs = -1, driftIntervalNs = -1; // -1: no drifting delay
    std::string deviceQueue = "1p";
    std::string discType; // empty: no queue disc, the device queue is the buffer
    std::vector<Attribute> discAttributes;
    double lossRate = 0;
};

struct FlowPlan
{
    bool tcp = true;
    uint32_t id = 0, source = 0, sink = 0;
    int64_t startNs = 0, stopNs = -1, sizeBytes = -1, thinkNs = -1, onNs = -1, offNs = -1;
    uint64_t rateBps = 0;
    uint32_t datagramBytes = 0;
    bool exponential = false;
    std::string ccType, recoveryType;
    std::vector<Attribute> socketAttributes, sinkAttributes, ccAttributes;
};

struct Plan
{
    int64_t durationNs = 0, sampleNs = 0;
    uint32_t seed = 1, run = 0, nodes = 0;
    std::vector<LinkPlan> links;
    std::map<uint32_t, QueuePlan> queues; // by channel
    std::vector<FlowPlan> flows;
};

Plan ReadPlan(const std::string& path);
// Sets each attribute from its text (an object's attributes read strings, as Config does).
void SetAll(Ptr<Object> object, const std::vector<Attribute>& attributes);
// A time as seconds with nanosecond digits, for the samples file.
std::string Seconds9(Time time);

// ---------------------------------------------------------------------------------------------
// Records: what the sampler and the final report read (records.cc holds them).

// Counts a dropped or lost data packet against its flow (-1: not a flow's data).
void CountLoss(int64_t flow);
// Data segments and the SYN count as a flow's packets, as in tcplab; ACKs and the FIN do not.
bool IsDataOrSyn(uint32_t payloadBytes, const TcpHeader& header);

struct FlowRecord
{
    Ptr<TcpSocketState> tcb; // the current connection's state (set by CongestionObserver::Init)
    uint64_t deliveredBytes = 0; // in order, to the receiving application, over all connections
    uint64_t sentPackets = 0, sentBytes = 0, retransmittedPackets = 0, retransmittedBytes = 0;
    uint64_t timeouts = 0, recoveries = 0, ecnReductions = 0, lostPackets = 0;
    int64_t completedNs = -1;
    uint32_t synsSent = 0; // by the current connection
    std::vector<double> rttSamples; // seconds
};

struct ChannelMonitor
{
    Ptr<PointToPointNetDevice> device;
    Ptr<QueueDisc> disc;
    uint64_t offered = 0, transmitted = 0, transmittedBytes = 0, delivered = 0, wireLosses = 0;
    uint64_t maxPackets = 0, maxBytes = 0;
    std::map<std::pair<std::string, std::string>, uint64_t> reasons; // (drop|mark, reason)
    std::unordered_map<uint64_t, int64_t> arrivalNs;                 // by packet uid
    std::vector<double> queueDelays;                                 // seconds

    uint64_t QueuedPackets() const
    {
        return device->GetQueue()->GetNPackets() + (disc ? disc->GetNPackets() : 0);
    }

    uint64_t QueuedBytes() const
    {
        return device->GetQueue()->GetNBytes() + (disc ? disc->GetNBytes() : 0);
    }

    void Arrive(uint64_t uid)
    {
        offered++;
        arrivalNs[uid] = Simulator::Now().GetNanoSeconds();
        maxPackets = std::max(maxPackets, QueuedPackets());
        maxBytes = std::max(maxBytes, QueuedBytes());
    }

    void Dropped(uint64_t uid, const std::string& reason, int64_t flow)
    {
        reasons[{"drop", reason}]++;
        arrivalNs.erase(uid);
        CountLoss(flow);
    }
};

extern std::vector<FlowRecord> g_flows;
extern std::vector<ChannelMonitor> g_channels;
extern std::ofstream g_samples;

// An "E" line of the samples file: an event of a flow, now.
void WriteEvent(uint32_t flow, const std::string& event);
// ---------------------------------------------------------------------------------------------
// The network (network.cc) and the flows on it (flows.cc).

struct Network
{
    NodeContainer nodes;
    std::vector<Ipv4Address> addresses; // one per node, for flows that end there
};

Network BuildNetwork(const Plan& plan);
// The channel's queue, loss and monitor traces, as the plan gives them.
void ConfigureChannel(uint32_t channel, const QueuePlan& queue);
// Every flow's applications and sockets, started at their times.
void InstallFlows(const Plan& plan, const Network& network);

} // namespace tcplab

#endif
