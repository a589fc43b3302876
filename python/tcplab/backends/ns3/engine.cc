// tcplab's ns-3 engine: one generic program, compiled once against the ns3 wheel (build.py),
// that runs the network a plan file describes (written by plan.py from the resolved scenario)
// and writes what tables.py turns into the simulator's tables (docs/ns3-backend.md).
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

namespace
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

Attribute
ParseAttribute(const std::string& text)
{
    auto equals = text.find('=');
    NS_ABORT_MSG_IF(equals == std::string::npos, "plan: attribute without '=': " << text);
    return {text.substr(0, equals), text.substr(equals + 1)};
}

FlowPlan&
FlowById(Plan& plan, uint32_t id)
{
    for (auto& flow : plan.flows)
    {
        if (flow.id == id)
        {
            return flow;
        }
    }
    NS_ABORT_MSG("plan: attributes for an unknown flow " << id);
}

Plan
ReadPlan(const std::string& path)
{
    std::ifstream in(path);
    NS_ABORT_MSG_IF(!in, "cannot read the plan " << path);
    Plan plan;
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream fields(line);
        std::string kind;
        if (!(fields >> kind))
        {
            continue;
        }
        if (kind == "simulation")
        {
            fields >> plan.durationNs >> plan.sampleNs >> plan.seed >> plan.run;
        }
        else if (kind == "nodes")
        {
            fields >> plan.nodes;
        }
        else if (kind == "link")
        {
            LinkPlan link;
            fields >> link.a >> link.b >> link.delayAtoB >> link.delayBtoA >> link.rateAtoB >> link.rateBtoA >>
                link.flowControl;
            plan.links.push_back(link);
        }
        else if (kind == "device_queue")
        {
            uint32_t channel;
            fields >> channel >> plan.queues[channel].deviceQueue;
        }
        else if (kind == "queue_disc")
        {
            uint32_t channel;
            std::string attribute;
            fields >> channel >> plan.queues[channel].discType;
            while (fields >> attribute)
            {
                plan.queues[channel].discAttributes.push_back(ParseAttribute(attribute));
            }
        }
        else if (kind == "delay_step")
        {
            uint32_t channel;
            int64_t at, delay;
            fields >> channel >> at >> delay;
            plan.queues[channel].delaySteps.emplace_back(at, delay);
        }
        else if (kind == "loss")
        {
            uint32_t channel;
            fields >> channel >> plan.queues[channel].lossRate;
        }
        else if (kind == "tcp" || kind == "udp")
        {
            FlowPlan flow;
            flow.tcp = kind == "tcp";
            fields >> flow.id >> flow.source >> flow.sink >> flow.startNs >> flow.stopNs;
            if (flow.tcp)
            {
                fields >> flow.sizeBytes >> flow.thinkNs >> flow.rateBps;
            }
            else
            {
                fields >> flow.rateBps >> flow.datagramBytes;
            }
            fields >> flow.onNs >> flow.offNs >> flow.exponential;
            if (flow.tcp)
            {
                fields >> flow.ccType >> flow.recoveryType;
            }
            plan.flows.push_back(flow);
        }
        else if (kind == "socket" || kind == "sink" || kind == "cc")
        {
            uint32_t id;
            std::string attribute;
            fields >> id >> attribute;
            auto& flow = FlowById(plan, id);
            auto& list = kind == "socket" ? flow.socketAttributes
                         : kind == "sink" ? flow.sinkAttributes
                                          : flow.ccAttributes;
            list.push_back(ParseAttribute(attribute));
        }
        else
        {
            NS_ABORT_MSG("plan: unknown line kind '" << kind << "'");
        }
        NS_ABORT_MSG_IF(fields.fail() && !fields.eof(), "plan: cannot read line: " << line);
    }
    return plan;
}

void
SetAll(Ptr<Object> object, const std::vector<Attribute>& attributes)
{
    for (const auto& attribute : attributes)
    {
        object->SetAttribute(attribute.name, StringValue(attribute.value));
    }
}

std::string
Seconds9(Time time)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.9f", time.GetSeconds());
    return text;
}

// ---------------------------------------------------------------------------------------------
// Flow records: what the sampler and the final report read.

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

std::vector<FlowRecord> g_flows;
std::ofstream g_samples;

void
WriteEvent(uint32_t flow, const std::string& event)
{
    g_samples << "E " << Seconds9(Simulator::Now()) << " " << flow << " " << event << "\n";
}

// Wraps a flow's congestion control to see what ns-3 tells the algorithm: each retransmission
// timeout (CA_LOSS, tcp-socket-base.cc ReTxTimeout; the CongState trace shows only the first of
// several in a row), each fast recovery (CA_RECOVERY), and the connection's TcpSocketState.
// Every call is passed on unchanged.
class CongestionObserver : public TcpCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("tcplab::CongestionObserver")
                                .SetParent<TcpCongestionOps>()
                                .SetGroupName("Internet");
        return tid;
    }

    CongestionObserver(Ptr<TcpCongestionOps> inner, uint32_t flow)
        : m_inner(inner),
          m_flow(flow)
    {
    }

    std::string GetName() const override
    {
        return m_inner->GetName();
    }

    void Init(Ptr<TcpSocketState> tcb) override
    {
        g_flows[m_flow].tcb = tcb;
        m_inner->Init(tcb);
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return m_inner->GetSsThresh(tcb, bytesInFlight);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        m_inner->IncreaseWindow(tcb, segmentsAcked);
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        m_inner->PktsAcked(tcb, segmentsAcked, rtt);
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        auto& record = g_flows[m_flow];
        if (newState == TcpSocketState::CA_LOSS)
        {
            record.timeouts++;
            WriteEvent(m_flow, "timeout");
        }
        else if (newState == TcpSocketState::CA_RECOVERY)
        {
            record.recoveries++;
        }
        m_inner->CongestionStateSet(tcb, newState);
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        m_inner->CwndEvent(tcb, event);
    }

    bool HasCongControl() const override
    {
        return m_inner->HasCongControl();
    }

    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override
    {
        m_inner->CongControl(tcb, rc, rs);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CreateObject<CongestionObserver>(m_inner->Fork(), m_flow);
    }

  private:
    Ptr<TcpCongestionOps> m_inner;
    uint32_t m_flow;
};

// ---------------------------------------------------------------------------------------------
// Applications.

// Data segments and the SYN count as sent, as in tcplab; ACKs and the FIN do not.
bool
IsDataOrSyn(uint32_t payloadBytes, const TcpHeader& header)
{
    return payloadBytes > 0 || header.GetFlags() == TcpHeader::SYN;
}

// A SYN sent again is the SYN's retransmission timer expiring (tcp-socket-base.cc ReTxTimeout
// resends it before the congestion control hears of any loss): a timeout, as tcplab counts.
void
OnTcpTx(uint32_t flow, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    auto& record = g_flows[flow];
    if (!IsDataOrSyn(packet->GetSize(), header))
    {
        return;
    }
    record.sentPackets++;
    record.sentBytes += packet->GetSize();
    if (packet->GetSize() == 0 && record.synsSent++ > 0)
    {
        record.timeouts++;
        record.retransmittedPackets++;
        WriteEvent(flow, "timeout");
    }
}

void
OnTcpRetransmission(uint32_t flow,
                    Ptr<const Packet> packet,
                    const TcpHeader&,
                    const Address&,
                    const Address&,
                    Ptr<const TcpSocketBase>)
{
    g_flows[flow].retransmittedPackets++;
    g_flows[flow].retransmittedBytes += packet->GetSize();
}

void
OnAlgorithmEvent(uint32_t flow, std::string event)
{
    WriteEvent(flow, event);
}

// ns-3.44's EnterCwr sets CA_CWR without telling the congestion control: seen on the trace.
void
OnCongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
{
    if (state == TcpSocketState::CA_CWR)
    {
        g_flows[flow].ecnReductions++;
    }
}

// ns-3's own estimator (RFC 6298 averages), keeping every sample it is given: each ACK's RTT
// sample as TcpSocketBase::EstimateRtt measures it. (The LastRTT trace would miss a sample equal
// to the one before, and with millisecond timestamps most are.)
class RecordingRttEstimator : public RttMeanDeviation
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("tcplab::RecordingRttEstimator")
                                .SetParent<RttMeanDeviation>()
                                .SetGroupName("Internet");
        return tid;
    }

    explicit RecordingRttEstimator(uint32_t flow)
        : m_flow(flow)
    {
    }

    void Measurement(Time sample) override
    {
        g_flows[m_flow].rttSamples.push_back(sample.GetSeconds());
        RttMeanDeviation::Measurement(sample);
    }

    Ptr<RttEstimator> Copy() const override
    {
        return CopyObject<RecordingRttEstimator>(this);
    }

  private:
    uint32_t m_flow;
};

// Writes a TCP flow's data: without limit (bulk), `size` bytes (finite; again after `think`
// when restarting, on a new connection), at `rate` when set, and only in on periods when set.
class TcpWriter : public Application
{
  public:
    TcpWriter(const FlowPlan& plan, Address peer)
        : m_plan(plan),
          m_peer(peer)
    {
    }

    // The receiving side calls this when a connection's last byte arrived.
    void TransferComplete()
    {
        if (m_plan.thinkNs < 0)
        {
            g_flows[m_plan.id].completedNs = Simulator::Now().GetNanoSeconds();
            return;
        }
        WriteEvent(m_plan.id, "transfer_complete");
        m_socket->Close();
        Simulator::Schedule(NanoSeconds(m_plan.thinkNs), &TcpWriter::Open, this);
    }

  private:
    void StartApplication() override
    {
        if (m_plan.onNs >= 0)
        {
            m_on = MakePeriod(m_plan.onNs);
            m_off = MakePeriod(m_plan.offNs);
        }
        Open();
        if (m_plan.stopNs >= 0)
        {
            Simulator::Schedule(NanoSeconds(m_plan.stopNs - m_plan.startNs), &TcpWriter::Stop, this);
        }
    }

    void StopApplication() override
    {
    }

    Ptr<RandomVariableStream> MakePeriod(int64_t meanNs)
    {
        if (m_plan.exponential)
        {
            auto period = CreateObject<ExponentialRandomVariable>();
            period->SetAttribute("Mean", DoubleValue(meanNs));
            return period;
        }
        auto period = CreateObject<ConstantRandomVariable>();
        period->SetAttribute("Constant", DoubleValue(meanNs));
        return period;
    }

    void Open()
    {
        if (m_stopped)
        {
            return;
        }
        if (m_plan.thinkNs >= 0)
        {
            WriteEvent(m_plan.id, "transfer_start");
        }
        g_flows[m_plan.id].synsSent = 0;
        m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        SetAll(m_socket, m_plan.socketAttributes);
        auto tcp = DynamicCast<TcpSocketBase>(m_socket);
        ObjectFactory recovery(m_plan.recoveryType);
        tcp->SetRecoveryAlgorithm(recovery.Create<TcpRecoveryOps>());
        ObjectFactory algorithm(m_plan.ccType);
        auto inner = algorithm.Create<TcpCongestionOps>();
        SetAll(inner, m_plan.ccAttributes);
        tcp->SetCongestionControlAlgorithm(CreateObject<CongestionObserver>(inner, m_plan.id));
        // Algorithms that report events of their own (TCP-RTA's switches) do it on "Switch".
        inner->TraceConnectWithoutContext("Switch", MakeBoundCallback(&OnAlgorithmEvent, m_plan.id));
        m_socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, m_plan.id));
        m_socket->TraceConnectWithoutContext("Retransmission",
                                             MakeBoundCallback(&OnTcpRetransmission, m_plan.id));
        tcp->SetRtt(CreateObject<RecordingRttEstimator>(m_plan.id));
        m_socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, m_plan.id));
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->SetSendCallback(MakeCallback(&TcpWriter::OnSpace, this));
        m_socket->SetDataSentCallback(MakeCallback(&TcpWriter::OnSpace, this));
        m_written = 0;
        m_allowance = 0;
        m_lastCredit = Simulator::Now();
        m_on_now = true;
        if (m_on)
        {
            m_periodEvent.Cancel();
            m_periodEvent = Simulator::Schedule(NanoSeconds(m_on->GetValue()), &TcpWriter::Toggle, this);
        }
        if (m_plan.rateBps > 0)
        {
            m_tick.Cancel();
            Tick();
        }
        Write();
    }

    void Stop()
    {
        m_stopped = true;
        m_tick.Cancel();
        m_periodEvent.Cancel();
    }

    void Toggle()
    {
        Credit();
        m_on_now = !m_on_now;
        auto next = m_on_now ? m_on : m_off;
        m_periodEvent = Simulator::Schedule(NanoSeconds(next->GetValue()), &TcpWriter::Toggle, this);
        Write();
    }

    // A rate-limited writer earns rate x time of data while on; ticks every segment's time.
    void Credit()
    {
        Time now = Simulator::Now();
        if (m_plan.rateBps > 0 && m_on_now)
        {
            m_allowance += (now - m_lastCredit).GetSeconds() * m_plan.rateBps / 8.0;
        }
        m_lastCredit = now;
    }

    void Tick()
    {
        Credit();
        Write();
        double segmentSeconds = 1448.0 * 8 / m_plan.rateBps;
        m_tick = Simulator::Schedule(Seconds(segmentSeconds), &TcpWriter::Tick, this);
    }

    void OnSpace(Ptr<Socket>, uint32_t)
    {
        Write();
    }

    void Write()
    {
        if (m_stopped || (m_on && !m_on_now))
        {
            return;
        }
        auto tcp = DynamicCast<TcpSocketBase>(m_socket);
        const auto& state = g_flows[m_plan.id].tcb;
        while (true)
        {
            // Data written but not yet sent is kept below UNSENT_BYTES: ns-3's send buffer
            // slows down with every byte it holds, and the socket asks for more as it sends.
            uint64_t unsent = tcp->GetTxBuffer()->SizeFromSequence(state->m_highTxMark);
            uint64_t room = std::min<uint64_t>(m_socket->GetTxAvailable(),
                                               unsent < UNSENT_BYTES ? UNSENT_BYTES - unsent : 0);
            uint64_t chunk = room;
            if (m_plan.sizeBytes >= 0)
            {
                chunk = std::min<uint64_t>(chunk, m_plan.sizeBytes - m_written);
            }
            if (m_plan.rateBps > 0)
            {
                chunk = std::min<uint64_t>(chunk, static_cast<uint64_t>(m_allowance));
            }
            if (chunk == 0)
            {
                return;
            }
            int accepted = m_socket->Send(Create<Packet>(chunk));
            if (accepted <= 0)
            {
                return;
            }
            m_written += accepted;
            if (m_plan.rateBps > 0)
            {
                m_allowance -= accepted;
            }
        }
    }

    FlowPlan m_plan;
    Address m_peer;
    Ptr<Socket> m_socket;
    Ptr<RandomVariableStream> m_on, m_off;
    EventId m_tick, m_periodEvent;
    uint64_t m_written = 0;
    double m_allowance = 0;
    Time m_lastCredit;
    bool m_on_now = true, m_stopped = false;
};

// Accepts a flow's connections and reads everything; ns-3 hands data to the application in
// order, each byte once.
class TcpReader : public Application
{
  public:
    TcpReader(const FlowPlan& plan, Ptr<TcpWriter> writer)
        : m_plan(plan),
          m_writer(writer)
    {
    }

  private:
    void StartApplication() override
    {
        m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        SetAll(m_listener, m_plan.sinkAttributes);
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), BASE_PORT + m_plan.id));
        m_listener->Listen();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&TcpReader::Accept, this));
    }

    void StopApplication() override
    {
    }

    void Accept(Ptr<Socket> socket, const Address&)
    {
        m_received[PeekPointer(socket)] = 0;
        socket->SetRecvCallback(MakeCallback(&TcpReader::Read, this));
    }

    void Read(Ptr<Socket> socket)
    {
        auto& received = m_received[PeekPointer(socket)];
        // Read in small pieces: ns-3 joins the segments of one Recv into one packet by copying,
        // which grows with the square of the bytes read at once.
        while (Ptr<Packet> packet = socket->Recv(READ_BYTES, 0))
        {
            if (packet->GetSize() == 0)
            {
                break;
            }
            received += packet->GetSize();
            g_flows[m_plan.id].deliveredBytes += packet->GetSize();
        }
        if (m_plan.sizeBytes >= 0 && received >= static_cast<uint64_t>(m_plan.sizeBytes))
        {
            received = 0; // a connection completes once
            m_received.erase(PeekPointer(socket));
            socket->SetRecvCallback(MakeCallback(&TcpReader::Discard, this));
            m_writer->TransferComplete();
        }
    }

    void Discard(Ptr<Socket> socket)
    {
        while (socket->Recv())
        {
        }
    }

    FlowPlan m_plan;
    Ptr<TcpWriter> m_writer;
    Ptr<Socket> m_listener;
    std::unordered_map<Socket*, uint64_t> m_received;
};

// Sends datagrams of the plan's size at its rate (while on), as tcplab's UDP flows.
class UdpSender : public Application
{
  public:
    UdpSender(const FlowPlan& plan, Address peer)
        : m_plan(plan),
          m_peer(peer)
    {
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_interval = Seconds(m_plan.datagramBytes * 8.0 / m_plan.rateBps);
        if (m_plan.onNs >= 0)
        {
            if (m_plan.exponential)
            {
                auto on = CreateObject<ExponentialRandomVariable>();
                on->SetAttribute("Mean", DoubleValue(m_plan.onNs));
                auto off = CreateObject<ExponentialRandomVariable>();
                off->SetAttribute("Mean", DoubleValue(m_plan.offNs));
                m_on = on;
                m_off = off;
            }
            else
            {
                auto on = CreateObject<ConstantRandomVariable>();
                on->SetAttribute("Constant", DoubleValue(m_plan.onNs));
                auto off = CreateObject<ConstantRandomVariable>();
                off->SetAttribute("Constant", DoubleValue(m_plan.offNs));
                m_on = on;
                m_off = off;
            }
            m_periodEnd = Simulator::Now() + NanoSeconds(m_on->GetValue());
        }
        Send();
    }

    void StopApplication() override
    {
        m_next.Cancel();
    }

    void Send()
    {
        Time now = Simulator::Now();
        if (m_on && now >= m_periodEnd)
        {
            // Off for a drawn period, then on again.
            Time offFor = NanoSeconds(m_off->GetValue());
            m_periodEnd = now + offFor + NanoSeconds(m_on->GetValue());
            m_next = Simulator::Schedule(offFor, &UdpSender::Send, this);
            return;
        }
        m_socket->Send(Create<Packet>(m_plan.datagramBytes - UDP_IP_HEADER_BYTES));
        g_flows[m_plan.id].sentPackets++;
        g_flows[m_plan.id].sentBytes += m_plan.datagramBytes;
        m_next = Simulator::Schedule(m_interval, &UdpSender::Send, this);
    }

    FlowPlan m_plan;
    Address m_peer;
    Ptr<Socket> m_socket;
    Time m_interval, m_periodEnd;
    Ptr<RandomVariableStream> m_on, m_off;
    EventId m_next;
};

void
OnUdpReceive(uint32_t flow, Ptr<Socket> socket)
{
    while (Ptr<Packet> packet = socket->Recv())
    {
        g_flows[flow].deliveredBytes += packet->GetSize() + UDP_IP_HEADER_BYTES;
    }
}

// ---------------------------------------------------------------------------------------------
// Channel monitors: one per link direction.

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

std::vector<ChannelMonitor> g_channels;

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

Ptr<Packet>
TransportOf(Ptr<const QueueDiscItem> item, uint8_t& protocol)
{
    auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    protocol = ip ? ip->GetHeader().GetProtocol() : 0;
    return item->GetPacket()->Copy();
}

int64_t
DataFlowOfItem(Ptr<const QueueDiscItem> item)
{
    uint8_t protocol;
    Ptr<Packet> packet = TransportOf(item, protocol);
    return DataFlowOf(packet, protocol);
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
// The network.

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

    bool TransmitStart(Ptr<const Packet> packet, Ptr<PointToPointNetDevice> source, Time txTime) override
    {
        uint32_t wire = source == GetSource(0) ? 0 : 1;
        Ptr<PointToPointNetDevice> destination = GetDestination(wire);
        Time delay = DelayAt(wire, (Simulator::Now() + txTime).GetNanoSeconds());
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
};

struct Network
{
    NodeContainer nodes;
    std::vector<Ipv4Address> addresses; // one per node, for flows that end there
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
        }
        for (uint32_t side = 0; side < 2; side++)
        {
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

// ---------------------------------------------------------------------------------------------
// Sampling and the final report.

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

void
Sample(const Plan& plan)
{
    std::string now = Seconds9(Simulator::Now());
    for (const auto& flow : plan.flows)
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
    if (Simulator::Now().GetNanoSeconds() + plan.sampleNs <= plan.durationNs)
    {
        Simulator::Schedule(NanoSeconds(plan.sampleNs), &Sample, plan);
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

} // namespace

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
    for (const auto& [channel, queue] : plan.queues)
    {
        ConfigureChannel(channel, queue);
    }
    for (uint32_t channel = 0; channel < g_channels.size(); channel++)
    {
        if (plan.queues.find(channel) == plan.queues.end())
        {
            ConfigureChannel(channel, QueuePlan());
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_flows.resize(plan.flows.size());
    for (const auto& flow : plan.flows)
    {
        Address peer = InetSocketAddress(network.addresses[flow.sink], BASE_PORT + flow.id);
        Ptr<Node> source = network.nodes.Get(flow.source);
        Ptr<Node> sink = network.nodes.Get(flow.sink);
        if (flow.tcp)
        {
            auto writer = CreateObject<TcpWriter>(flow, peer);
            auto reader = CreateObject<TcpReader>(flow, writer);
            source->AddApplication(writer);
            sink->AddApplication(reader);
            writer->SetStartTime(NanoSeconds(flow.startNs));
            reader->SetStartTime(Seconds(0));
        }
        else
        {
            auto sender = CreateObject<UdpSender>(flow, peer);
            source->AddApplication(sender);
            sender->SetStartTime(NanoSeconds(flow.startNs));
            if (flow.stopNs >= 0)
            {
                sender->SetStopTime(NanoSeconds(flow.stopNs));
            }
            auto socket = Socket::CreateSocket(sink, UdpSocketFactory::GetTypeId());
            socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), BASE_PORT + flow.id));
            socket->SetRecvCallback(MakeBoundCallback(&OnUdpReceive, flow.id));
        }
    }
    Simulator::Schedule(NanoSeconds(plan.sampleNs), &Sample, plan);
    Simulator::Stop(NanoSeconds(plan.durationNs));
    Simulator::Run();
    Report(plan, directory);
    g_samples.close();
    Simulator::Destroy();
    return 0;
}
