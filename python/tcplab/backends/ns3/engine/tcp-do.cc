// TCP-do (papers/tcp-do.txt: section III, Algorithm 1, equations 1 and 2) as an ns-3
// TcpCongestionOps: its authors ran it in ns-3 but published no code, so the engine carries this
// one, the algorithm of tcplab's `tcp_do` (crates/tcplab-core/src/cc/tcp_do.rs;
// docs/algorithms/tcp_do.md records every decision the paper leaves open), written against
// ns-3 3.44's interface:
//
// - Every PktsAcked call whose RTT differs from the previous one by more than OscillationDelta
//   (0.01 ms) is an oscillation. Once Window (100 ms) has passed since the window began, the
//   frequency is oscillations per millisecond of the elapsed window, and the count restarts.
// - A window is congested when the frequency exceeds the threshold (InitialThreshold at the
//   start, kept within 0.5 to 4 times it) and the weighted average of the last RttHistory RTTs
//   (weights 1..n, newest heaviest) exceeds the smallest RTT seen by the fraction RttRise. Then
//   severity = frequency / threshold, cwnd x max(0.7, 1 - 0.1 severity) (1), at least two
//   segments, and ssthresh = the new cwnd, so the flow goes on in congestion avoidance (the
//   paper names only cwnd; tcplab's decision). A reduction is the event "tcpdo_reduction".
// - A calm window raises the threshold by min(1.5, 1 + 0.2 severity) (2) if the windows before it
//   were congested (the largest severity since), then lowers it by CalmThresholdFactor (2%).
// - Growth: RFC 5681 per ACK (slow start by at most one segment, not past ssthresh; avoidance
//   SMSS^2 / cwnd), and while not congested CalmIncrease (7) segments more per RTT (on each ACK,
//   7 x the acknowledged fraction of cwnd), or, with CalmIncreasePer "Window", 7 segments once
//   per calm window. Losses are NewReno's (GetSsThresh: half the bytes in flight).
// - A window that ends while ns-3 is in fast recovery (CA_RECOVERY) or reducing for ECN (CA_CWR)
//   is not evaluated: its count is dropped.
//
// Where ns-3's interface makes this differ from tcplab's `tcp_do`: the RTT is the one ns-3 passes
// to PktsAcked, the smoothed RTT (tcp-socket-base.cc:2038-2228 pass m_tcb->m_srtt; tcplab's
// `ns3` profile gives its algorithms the smoothed RTT too, `algorithm_rtt = "smoothed"`), and
// ns-3 makes that call also on duplicate ACKs, where tcplab's algorithm sees only ACKs that
// acknowledge data or carry an RTT sample. ns-3's smoothed RTT averages samples taken from
// timestamps in whole milliseconds. The per-ACK sample ns-3 keeps in m_lastRtt is not used: it
// keeps its value on ACKs without a sample, so a repeated value cannot be told from a stale one.

#include "ns3/core-module.h"
#include "ns3/internet-module.h"

#include <algorithm>
#include <deque>
#include <optional>

namespace ns3
{

class TcpDo : public TcpNewReno
{
  public:
    // What the calm increase is counted per (the paper: "7 segments", without a unit of time).
    enum CalmIncreasePer
    {
        PER_RTT,
        PER_WINDOW,
    };

    static TypeId GetTypeId();

    TcpDo() = default;
    TcpDo(const TcpDo& other) = default;

    std::string GetName() const override
    {
        return "TcpDo";
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDo>(this);
    }

  private:
    // The threshold's bounds, relative to InitialThreshold (tcplab's THRESHOLD_RANGE).
    static constexpr double THRESHOLD_LOW = 0.5;
    static constexpr double THRESHOLD_HIGH = 4.0;

    void Observe(Time rtt);
    // The weighted average of the remembered RTTs, ns.
    double WeightedRttNs() const;
    void CloseWindow(Ptr<TcpSocketState> tcb, Time elapsed);

    // Attributes.
    Time m_oscillationDelta;
    Time m_window;
    double m_initialThreshold{1.0};
    uint32_t m_calmIncrease{7};
    CalmIncreasePer m_calmIncreasePer{PER_RTT};
    double m_calmThresholdFactor{0.98};
    uint32_t m_rttHistory{8};
    double m_rttRise{0};

    // State.
    bool m_started{false}; // the first PktsAcked began the first window
    Time m_windowStart;
    std::optional<Time> m_lastRtt;
    uint64_t m_oscillations{0};
    double m_threshold{0};            // oscillations per ms
    std::deque<Time> m_history;       // the last RttHistory RTTs, oldest first
    Time m_minRtt{Time::Max()};
    std::optional<double> m_pendingRecovery; // the largest severity not yet recovered from
    bool m_congested{false};                 // the last evaluated window was congested
    TracedCallback<std::string> m_eventTrace;
};

NS_OBJECT_ENSURE_REGISTERED(TcpDo);

TypeId
TcpDo::GetTypeId()
{
    static TypeId tid =
        TypeId("tcplab::TcpDo")
            .SetParent<TcpNewReno>()
            .SetGroupName("Internet")
            .AddConstructor<TcpDo>()
            .AddAttribute("OscillationDelta",
                          "RTT changes larger than this are oscillations",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&TcpDo::m_oscillationDelta),
                          MakeTimeChecker())
            .AddAttribute("Window",
                          "The frequency window",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&TcpDo::m_window),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("InitialThreshold",
                          "The congestion threshold at the start, oscillations per ms",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TcpDo::m_initialThreshold),
                          MakeDoubleChecker<double>(0.001, 1000))
            .AddAttribute("CalmIncrease",
                          "Segments added while calm, per RTT or per window",
                          UintegerValue(7),
                          MakeUintegerAccessor(&TcpDo::m_calmIncrease),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("CalmIncreasePer",
                          "What the calm increase is counted per",
                          EnumValue(PER_RTT),
                          MakeEnumAccessor<CalmIncreasePer>(&TcpDo::m_calmIncreasePer),
                          MakeEnumChecker(PER_RTT, "Rtt", PER_WINDOW, "Window"))
            .AddAttribute("CalmThresholdFactor",
                          "Threshold multiplier per calm window",
                          DoubleValue(0.98),
                          MakeDoubleAccessor(&TcpDo::m_calmThresholdFactor),
                          MakeDoubleChecker<double>(0.5, 1.0))
            .AddAttribute("RttHistory",
                          "RTTs in the weighted average",
                          UintegerValue(8),
                          MakeUintegerAccessor(&TcpDo::m_rttHistory),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("RttRise",
                          "The weighted RTT must exceed the smallest by this fraction for congestion",
                          DoubleValue(0),
                          MakeDoubleAccessor(&TcpDo::m_rttRise),
                          MakeDoubleChecker<double>(0, 10))
            .AddTraceSource("Event",
                            "An event of the algorithm's own: tcpdo_reduction",
                            MakeTraceSourceAccessor(&TcpDo::m_eventTrace),
                            "ns3::TracedValueCallback::String");
    return tid;
}

void
TcpDo::Observe(Time rtt)
{
    if (m_lastRtt && Abs(rtt - *m_lastRtt) > m_oscillationDelta)
    {
        m_oscillations++;
    }
    m_lastRtt = rtt;
    m_minRtt = std::min(m_minRtt, rtt);
    m_history.push_back(rtt);
    while (m_history.size() > m_rttHistory)
    {
        m_history.pop_front();
    }
}

double
TcpDo::WeightedRttNs() const
{
    double sum = 0;
    double weights = 0;
    for (size_t i = 0; i < m_history.size(); i++)
    {
        sum += (i + 1) * static_cast<double>(m_history[i].GetNanoSeconds());
        weights += i + 1;
    }
    return sum / weights;
}

void
TcpDo::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t, const Time& rtt)
{
    // Zero until the connection has its first RTT sample.
    if (!rtt.IsZero())
    {
        Observe(rtt);
    }
    Time now = Simulator::Now();
    if (!m_started)
    {
        // Attributes are set after construction: the threshold starts here.
        m_started = true;
        m_windowStart = now;
        m_threshold = m_initialThreshold;
    }
    if (now - m_windowStart < m_window)
    {
        return;
    }
    Time elapsed = now - m_windowStart;
    m_windowStart = now;
    auto state = tcb->m_congState.Get();
    if (state == TcpSocketState::CA_RECOVERY || state == TcpSocketState::CA_CWR)
    {
        m_oscillations = 0;
        return;
    }
    CloseWindow(tcb, elapsed);
}

void
TcpDo::CloseWindow(Ptr<TcpSocketState> tcb, Time elapsed)
{
    // Algorithm 1's osc_cnt / 100 for a 100 ms window: oscillations per millisecond.
    double frequency = m_oscillations / (elapsed.GetNanoSeconds() / 1e6);
    m_oscillations = 0;
    bool queueing = !m_history.empty() &&
                    WeightedRttNs() > m_minRtt.GetNanoSeconds() * (1.0 + m_rttRise);
    m_congested = frequency > m_threshold && queueing;
    uint64_t mss = tcb->m_segmentSize;
    if (m_congested)
    {
        double severity = frequency / m_threshold;
        double factor = std::max(0.7, 1.0 - 0.1 * severity); // (1)
        uint64_t reduced = static_cast<uint64_t>(tcb->m_cWnd.Get() * factor);
        tcb->m_cWnd = static_cast<uint32_t>(std::max(reduced, 2 * mss));
        tcb->m_ssThresh = tcb->m_cWnd.Get();
        m_pendingRecovery = std::max(m_pendingRecovery.value_or(severity), severity);
        m_eventTrace("tcpdo_reduction");
    }
    else
    {
        if (m_pendingRecovery)
        {
            m_threshold *= std::min(1.5, 1.0 + 0.2 * *m_pendingRecovery); // (2)
            m_pendingRecovery.reset();
        }
        m_threshold *= m_calmThresholdFactor;
        if (m_calmIncreasePer == PER_WINDOW)
        {
            uint64_t cwnd = tcb->m_cWnd.Get() + uint64_t{m_calmIncrease} * mss;
            tcb->m_cWnd = static_cast<uint32_t>(std::min<uint64_t>(cwnd, UINT32_MAX));
        }
    }
    m_threshold = std::clamp(m_threshold,
                             m_initialThreshold * THRESHOLD_LOW,
                             m_initialThreshold * THRESHOLD_HIGH);
}

void
TcpDo::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    if (segmentsAcked == 0)
    {
        return;
    }
    uint64_t mss = tcb->m_segmentSize;
    uint64_t acked = uint64_t{segmentsAcked} * mss;
    uint64_t cwnd = tcb->m_cWnd;
    uint64_t ssthresh = tcb->m_ssThresh;
    if (cwnd < ssthresh)
    {
        cwnd = std::min(cwnd + std::min(acked, mss), std::max(ssthresh, cwnd));
    }
    else
    {
        cwnd += std::max<uint64_t>(mss * mss / cwnd, 1);
    }
    if (m_calmIncreasePer == PER_RTT && !m_congested)
    {
        // CalmIncrease segments per cwnd of acknowledged data, bytes.
        cwnd += uint64_t{m_calmIncrease} * mss * acked / std::max<uint64_t>(cwnd, 1);
    }
    tcb->m_cWnd = static_cast<uint32_t>(std::min<uint64_t>(cwnd, UINT32_MAX));
}

} // namespace ns3
