// tcplab's ns-3 engine: the flows. A TCP writer and reader per flow (each socket gets its
// attributes, congestion control and recovery before it connects), a UDP sender, and what
// they record: segments sent and retransmitted, every RTT sample, timeouts and recoveries.

#include "engine.h"

namespace tcplab
{

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

// An on or off period's length (ns): constant, or exponential with that mean, as the plan says.
Ptr<RandomVariableStream>
MakePeriod(int64_t meanNs, bool exponential)
{
    if (exponential)
    {
        auto period = CreateObject<ExponentialRandomVariable>();
        period->SetAttribute("Mean", DoubleValue(meanNs));
        return period;
    }
    auto period = CreateObject<ConstantRandomVariable>();
    period->SetAttribute("Constant", DoubleValue(meanNs));
    return period;
}

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
            m_on = MakePeriod(m_plan.onNs, m_plan.exponential);
            m_off = MakePeriod(m_plan.offNs, m_plan.exponential);
        }
        Open();
        if (m_plan.stopNs >= 0)
        {
            Simulator::Schedule(NanoSeconds(m_plan.stopNs - m_plan.startNs), &TcpWriter::Stop, this);
        }
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
        // Algorithms that report events of their own (TCP-RTA's switches, TCP-do's reductions)
        // do it on "Event", named as the simulator names them.
        inner->TraceConnectWithoutContext("Event", MakeBoundCallback(&OnAlgorithmEvent, m_plan.id));
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
        double segmentSeconds = g_flows[m_plan.id].tcb->m_segmentSize * 8.0 / m_plan.rateBps;
        m_tick = Simulator::Schedule(Seconds(segmentSeconds), &TcpWriter::Tick, this);
    }

    void OnSpace(Ptr<Socket>, uint32_t)
    {
        Write();
    }

    // An on/off writer earns data only while on (Credit), but what it earned and the socket could
    // not take yet is written while off too: tcplab's off_unsent = "keep" (the only on/off mode
    // the back-end runs, and it needs a rate) sends data written in an on period across the off
    // period.
    void Write()
    {
        if (m_stopped)
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
        if (m_plan.ccType == "ns3::TcpDctcp")
        {
            // DCTCP's CE echo belongs to the receiving socket's congestion control (tcp-dctcp.cc
            // CeState0to1, CeState1to0; Init selects DctcpEcn): the listener runs TcpDctcp too,
            // and the sockets it accepts fork it.
            ObjectFactory algorithm(m_plan.ccType);
            auto echo = algorithm.Create<TcpCongestionOps>();
            SetAll(echo, m_plan.ccAttributes);
            DynamicCast<TcpSocketBase>(m_listener)->SetCongestionControlAlgorithm(echo);
        }
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), BASE_PORT + m_plan.id));
        m_listener->Listen();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&TcpReader::Accept, this));
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
            // A connection completes once; what else arrives on it is read and dropped.
            m_received.erase(PeekPointer(socket));
            socket->SetRecvCallback(MakeCallback(&TcpReader::Discard, this));
            m_writer->TransferComplete();
        }
    }

    void Discard(Ptr<Socket> socket)
    {
        while (socket->Recv(READ_BYTES, 0))
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
            m_on = MakePeriod(m_plan.onNs, m_plan.exponential);
            m_off = MakePeriod(m_plan.offNs, m_plan.exponential);
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

void
InstallFlows(const Plan& plan, const Network& network)
{
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
}

} // namespace tcplab
