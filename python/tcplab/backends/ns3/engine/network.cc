// tcplab's ns-3 engine: the network. Point-to-point links with a delay per direction, each
// direction's buffer (the device queue, or a queue disc above a one-packet device queue),
// random loss, and the monitors that count what each direction offered, sent, dropped and
// marked.

#include "engine.h"

#include <cmath>
#include <optional>

namespace tcplab
{

// ---------------------------------------------------------------------------------------------
// Monitors: one per link direction.

// The flow a data packet (or SYN) belongs to, by its TCP or UDP destination port; -1 for ACKs and
// FINs. `packet` starts at the transport header.
int64_t
DataFlowOf(Ptr<Packet> packet, uint8_t protocol)
{
    if (protocol == TcpL4Protocol::PROT_NUMBER)
    {
        TcpHeader tcp;
        packet->RemoveHeader(tcp);
        if (!IsDataOrSyn(packet->GetSize(), tcp))
        {
            return -1;
        }
        return static_cast<int64_t>(tcp.GetDestinationPort()) - BASE_PORT;
    }
    UdpHeader udp;
    packet->PeekHeader(udp);
    return static_cast<int64_t>(udp.GetDestinationPort()) - BASE_PORT;
}

int64_t
DataFlowOfFrame(Ptr<const Packet> frame)
{
    Ptr<Packet> packet = frame->Copy();
    PppHeader ppp;
    packet->RemoveHeader(ppp);
    Ipv4Header ip;
    packet->RemoveHeader(ip);
    return DataFlowOf(packet, ip.GetProtocol());
}

void
CountLoss(int64_t flow)
{
    if (flow >= 0 && flow < static_cast<int64_t>(g_flows.size()))
    {
        g_flows[flow].lostPackets++;
    }
}

// Without a queue disc, every packet passes the device queue.
void
OnDeviceEnqueue(uint32_t channel, Ptr<const Packet> packet)
{
    g_channels[channel].Arrive(packet->GetUid());
}

// A packet the full device queue refused was offered all the same.
void
OnDeviceDrop(uint32_t channel, Ptr<const Packet> packet)
{
    g_channels[channel].offered++;
    g_channels[channel].Dropped(packet->GetUid(), "Queue full", DataFlowOfFrame(packet));
}

// A queue disc's item holds its IPv4 header apart; the packet starts at the transport header.
int64_t
DataFlowOfItem(Ptr<const QueueDiscItem> item)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    return DataFlowOf(item->GetPacket()->Copy(), ip ? ip->GetHeader().GetProtocol() : 0);
}

void
OnDiscEnqueue(uint32_t channel, Ptr<const QueueDiscItem> item)
{
    g_channels[channel].Arrive(item->GetPacket()->GetUid());
}

// A packet dropped on arrival never entered the queue disc: it was offered all the same.
void
OnDiscDropBeforeEnqueue(uint32_t channel, Ptr<const QueueDiscItem> item, const char* reason)
{
    auto& monitor = g_channels[channel];
    monitor.offered++;
    monitor.Dropped(item->GetPacket()->GetUid(), reason, DataFlowOfItem(item));
}

void
OnDiscDropAfterDequeue(uint32_t channel, Ptr<const QueueDiscItem> item, const char* reason)
{
    g_channels[channel].Dropped(item->GetPacket()->GetUid(), reason, DataFlowOfItem(item));
}

void
OnDiscMark(uint32_t channel, Ptr<const QueueDiscItem>, const char* reason)
{
    g_channels[channel].reasons[{"mark", reason}]++;
}

void
OnTransmitBegin(uint32_t channel, Ptr<const Packet> packet)
{
    auto& monitor = g_channels[channel];
    monitor.transmitted++;
    monitor.transmittedBytes += packet->GetSize();
    auto arrival = monitor.arrivalNs.find(packet->GetUid());
    if (arrival != monitor.arrivalNs.end())
    {
        monitor.queueDelays.push_back((Simulator::Now().GetNanoSeconds() - arrival->second) * 1e-9);
        monitor.arrivalNs.erase(arrival);
    }
}

void
OnReceiveEnd(uint32_t channel, Ptr<const Packet>)
{
    g_channels[channel].delivered++;
}

void
OnWireLoss(uint32_t channel, Ptr<const Packet> frame)
{
    g_channels[channel].wireLosses++;
    CountLoss(DataFlowOfFrame(frame));
}

// ---------------------------------------------------------------------------------------------
// Links.

// A drifting extra delay, tcplab's jitter distribution "drift" (net/wire.rs): it moves linearly
// between values drawn uniformly from [min, max] every interval (ns). The scenario's validation
// keeps the interval at least max - min, so the delay never changes faster than time passes and
// packets stay in order. The knots come from ns-3's own random stream, not tcplab's: the same
// kind of path, not the same draws.
class Drift
{
  public:
    Drift(int64_t minNs, int64_t maxNs, int64_t intervalNs, int64_t stream)
        : m_uniform(CreateObject<UniformRandomVariable>()),
          m_intervalNs(intervalNs)
    {
        m_uniform->SetAttribute("Min", DoubleValue(minNs));
        m_uniform->SetAttribute("Max", DoubleValue(maxNs));
        m_uniform->SetStream(stream);
        m_before = m_uniform->GetValue();
        m_after = m_uniform->GetValue();
        m_afterNs = m_intervalNs;
    }

    // The extra delay (ns) of a packet leaving the transmitter at `atNs`; calls come in time
    // order, as packets leave one direction.
    int64_t At(int64_t atNs)
    {
        while (atNs >= m_afterNs)
        {
            m_beforeNs = m_afterNs;
            m_before = m_after;
            m_afterNs += m_intervalNs;
            m_after = m_uniform->GetValue();
        }
        double fraction = static_cast<double>(atNs - m_beforeNs) / m_intervalNs;
        return std::llround(m_before + (m_after - m_before) * fraction);
    }

  private:
    Ptr<UniformRandomVariable> m_uniform;
    int64_t m_intervalNs;
    // The knots around the last departure: (time, delay) before and after it, ns.
    int64_t m_beforeNs = 0, m_afterNs = 0;
    double m_before = 0, m_after = 0;
};

// A point-to-point channel with a propagation delay per direction, each with its steps in time:
// ns-3's PointToPointChannel has one delay for both. A packet takes the delay in force when it
// has left the transmitter, as tcplab's links (docs/scenarios.md, delay_schedule).
class DirectionalDelayChannel : public PointToPointChannel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("tcplab::DirectionalDelayChannel")
                                .SetParent<PointToPointChannel>()
                                .SetGroupName("PointToPoint");
        return tid;
    }

    // Steps per direction (0: from the channel's first device), each sorted by time; the first
    // at time 0 is the base delay.
    void SetDelays(std::vector<std::pair<int64_t, int64_t>> steps[2])
    {
        m_steps[0] = steps[0];
        m_steps[1] = steps[1];
    }

    void SetDrift(uint32_t wire, const Drift& drift)
    {
        m_drift[wire] = drift;
    }

    bool TransmitStart(Ptr<const Packet> packet, Ptr<PointToPointNetDevice> source, Time txTime) override
    {
        uint32_t wire = source == GetSource(0) ? 0 : 1;
        Ptr<PointToPointNetDevice> destination = GetDestination(wire);
        int64_t departureNs = (Simulator::Now() + txTime).GetNanoSeconds();
        Time delay = DelayAt(wire, departureNs);
        if (m_drift[wire])
        {
            delay += NanoSeconds(m_drift[wire]->At(departureNs));
        }
        Simulator::ScheduleWithContext(destination->GetNode()->GetId(),
                                       txTime + delay,
                                       &PointToPointNetDevice::Receive,
                                       destination,
                                       packet->Copy());
        return true;
    }

  private:
    Time DelayAt(uint32_t wire, int64_t atNs) const
    {
        int64_t delay = 0;
        for (const auto& [at, value] : m_steps[wire])
        {
            if (at > atNs)
            {
                break;
            }
            delay = value;
        }
        return NanoSeconds(delay);
    }

    std::vector<std::pair<int64_t, int64_t>> m_steps[2];
    std::optional<Drift> m_drift[2];
};

Network
BuildNetwork(const Plan& plan)
{
    Network network;
    network.nodes.Create(plan.nodes);
    InternetStackHelper stack;
    stack.Install(network.nodes);
    network.addresses.resize(plan.nodes);
    std::vector<bool> addressed(plan.nodes, false);
    Ipv4AddressHelper addressing;
    addressing.SetBase("10.0.0.0", "255.255.255.252");
    g_channels.resize(plan.links.size() * 2);
    TrafficControlHelper noDisc;
    for (uint32_t index = 0; index < plan.links.size(); index++)
    {
        const auto& link = plan.links[index];
        PointToPointHelper p2p;
        if (!link.flowControl)
        {
            p2p.DisableFlowControl();
        }
        NetDeviceContainer devices = p2p.Install(network.nodes.Get(link.a), network.nodes.Get(link.b));
        // The helper's channel has one delay: both devices move to one with a delay each way.
        std::vector<std::pair<int64_t, int64_t>> steps[2];
        int64_t base[2] = {link.delayAtoB, link.delayBtoA};
        for (uint32_t side = 0; side < 2; side++)
        {
            steps[side].emplace_back(0, base[side]);
            auto queue = plan.queues.find(2 * index + side);
            if (queue != plan.queues.end())
            {
                steps[side].insert(steps[side].end(),
                                   queue->second.delaySteps.begin(),
                                   queue->second.delaySteps.end());
            }
        }
        auto channel = CreateObject<DirectionalDelayChannel>();
        channel->SetDelays(steps);
        for (uint32_t side = 0; side < 2; side++)
        {
            auto queue = plan.queues.find(2 * index + side);
            if (queue != plan.queues.end() && queue->second.driftIntervalNs > 0)
            {
                const auto& drift = queue->second;
                // Streams 2000 + channel: apart from the loss models' 1000 + channel.
                channel->SetDrift(side,
                                  Drift(drift.driftMinNs,
                                        drift.driftMaxNs,
                                        drift.driftIntervalNs,
                                        2000 + 2 * index + side));
            }
        }
        for (uint32_t side = 0; side < 2; side++)
        {
            DynamicCast<PointToPointNetDevice>(devices.Get(side))->Attach(channel);
        }
        auto interfaces = addressing.Assign(devices);
        addressing.NewNetwork();
        uint32_t ends[2] = {link.a, link.b};
        for (uint32_t side = 0; side < 2; side++)
        {
            if (!addressed[ends[side]])
            {
                network.addresses[ends[side]] = interfaces.GetAddress(side);
                addressed[ends[side]] = true;
            }
            auto device = DynamicCast<PointToPointNetDevice>(devices.Get(side));
            // Ipv4AddressHelper::Assign installs ns-3's default queue disc (FqCoDel) on devices
            // with flow control: removed, so a device's buffer is what the plan says.
            auto control = device->GetNode()->GetObject<TrafficControlLayer>();
            if (control->GetRootQueueDiscOnDevice(device))
            {
                noDisc.Uninstall(device);
            }
            device->SetDataRate(DataRate(side == 0 ? link.rateAtoB : link.rateBtoA));
            g_channels[2 * index + side].device = device;
        }
    }
    return network;
}

void
ConfigureChannel(uint32_t channel, const QueuePlan& queue)
{
    auto& monitor = g_channels[channel];
    auto device = monitor.device;
    device->GetQueue()->SetMaxSize(QueueSize(queue.deviceQueue));
    if (!queue.discType.empty())
    {
        // A queue disc's attributes are read when it is created: set as defaults for its type.
        // FqCoDel's quantum is no attribute, only a setter (fq-codel-queue-disc.cc:179-183).
        uint32_t quantum = 0;
        for (const auto& attribute : queue.discAttributes)
        {
            if (attribute.name == "Quantum")
            {
                quantum = std::stoul(attribute.value);
                continue;
            }
            Config::SetDefault(queue.discType + "::" + attribute.name, StringValue(attribute.value));
        }
        TrafficControlHelper helper;
        helper.SetRootQueueDisc(queue.discType);
        monitor.disc = helper.Install(device).Get(0);
        if (quantum > 0)
        {
            DynamicCast<FqCoDelQueueDisc>(monitor.disc)->SetQuantum(quantum);
        }
        monitor.disc->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&OnDiscEnqueue, channel));
        monitor.disc->TraceConnectWithoutContext("DropBeforeEnqueue",
                                                 MakeBoundCallback(&OnDiscDropBeforeEnqueue, channel));
        monitor.disc->TraceConnectWithoutContext("DropAfterDequeue",
                                                 MakeBoundCallback(&OnDiscDropAfterDequeue, channel));
        monitor.disc->TraceConnectWithoutContext("Mark", MakeBoundCallback(&OnDiscMark, channel));
    }
    else
    {
        device->GetQueue()->TraceConnectWithoutContext("Enqueue",
                                                       MakeBoundCallback(&OnDeviceEnqueue, channel));
        device->GetQueue()->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDeviceDrop, channel));
    }
    device->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnTransmitBegin, channel));
    // The peer device receives this direction's packets.
    auto peer = DynamicCast<PointToPointNetDevice>(
        device->GetChannel()->GetDevice(device->GetChannel()->GetDevice(0) == device ? 1 : 0));
    peer->TraceConnectWithoutContext("PhyRxEnd", MakeBoundCallback(&OnReceiveEnd, channel));
    peer->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&OnWireLoss, channel));
    if (queue.lossRate > 0)
    {
        auto loss = CreateObject<RateErrorModel>();
        loss->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        loss->SetAttribute("ErrorRate", DoubleValue(queue.lossRate));
        loss->AssignStreams(1000 + channel);
        peer->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    }
}

} // namespace tcplab
