// TCP-RTA (papers/tcp-rta.txt: section 3, Algorithms 1 and 2) as an ns-3 TcpCongestionOps, so the
// paper's experiment runs in the simulator its authors used. No authors' code exists; this is the
// algorithm of tcplab's `rta` (docs/algorithms/rta.md records every decision the paper leaves
// open), written against ns-3 3.44's interface:
//
// - NewReno until three consecutive RTTs exceed UpperThreshold (800 ms), then Hybla's growth;
//   back after three below LowerThreshold (300 ms). The three remembered RTTs start at the lower
//   threshold. cwnd, ssthresh and the byte counter carry over a switch.
// - Enhancements: slow start by segments acknowledged (1), byte-counted avoidance (2), ssthresh =
//   2/3 of the bytes in flight at a fast retransmit, half at a timeout (3), and at a switch
//   ssthresh raised to BdpBoostFactor x (cwnd / smoothed RTT) x RTT (4).
// - Hybla: rho = max(smallest RTT since the switch / Rtt0, 1); slow start adds 2^rho - 1 segments
//   per ACK (exponent at most 16), avoidance rho^2 / cwnd per ACK, or per acknowledged segment
//   with HyblaCountAckedSegments (as ns-3's TcpHybla).
//
// Where ns-3's interface makes this differ from tcplab's `rta`: the RTT is the one ns-3 passes to
// PktsAcked (the smoothed RTT, on every ACK, duplicates included; tcplab's `ns3` profile gives
// the smoothed RTT too, on ACKs that acknowledge data); the boost's rate is cwnd / smoothed RTT
// (ns-3 gives window-based algorithms no delivery-rate sample; tcplab uses the sample when there
// is one); NewReno's slow start without enhancement 1 adds one segment per ACK.

#include "ns3/core-module.h"
#include "ns3/internet-module.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

class TcpRta : public TcpNewReno
{
  public:
    static TypeId GetTypeId();

    TcpRta() = default;
    TcpRta(const TcpRta& other) = default;

    std::string GetName() const override
    {
        return "TcpRta";
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t newState) override;

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpRta>(this);
    }

  private:
    // Hybla's slow-start exponent cap, as Linux's `1 << min(rho, 16)`.
    static constexpr double MAX_SLOW_START_EXPONENT = 16.0;

    double Rho() const;
    void Switch(Ptr<TcpSocketState> tcb, bool toHybla, Time rtt);
    void GrowNewReno(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, bool inSlowStart);
    void GrowHybla(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, bool inSlowStart);

    // Attributes.
    Time m_upperThreshold;
    Time m_lowerThreshold;
    Time m_rtt0;
    bool m_slowStartBySegments{true};
    bool m_byteCountedAvoidance{true};
    bool m_twoThirdsSsthresh{true};
    bool m_bdpBoost{true};
    double m_bdpBoostFactor{10};
    bool m_hyblaCountAckedSegments{false};

    // State.
    bool m_hybla{false};
    bool m_started{false};
    Time m_recent[3];               // the current RTT and the two before it
    Time m_minRttSinceSwitch{Time::Max()};
    uint64_t m_bytesAcked{0};       // enhancement 2's counter
    double m_fraction{0};           // Hybla's fractional increase carried between ACKs, bytes
    uint32_t m_lastInFlight{0};     // what the last GetSsThresh was given
    bool m_ssThreshJustSet{false};  // GetSsThresh ran for the event being signalled
    TracedCallback<std::string> m_eventTrace;
};

NS_OBJECT_ENSURE_REGISTERED(TcpRta);

TypeId
TcpRta::GetTypeId()
{
    static TypeId tid =
        TypeId("tcplab::TcpRta")
            .SetParent<TcpNewReno>()
            .SetGroupName("Internet")
            .AddConstructor<TcpRta>()
            .AddAttribute("UpperThreshold",
                          "Three RTTs above this switch to Hybla",
                          TimeValue(MilliSeconds(800)),
                          MakeTimeAccessor(&TcpRta::m_upperThreshold),
                          MakeTimeChecker())
            .AddAttribute("LowerThreshold",
                          "Three RTTs below this switch back to NewReno",
                          TimeValue(MilliSeconds(300)),
                          MakeTimeAccessor(&TcpRta::m_lowerThreshold),
                          MakeTimeChecker())
            .AddAttribute("Rtt0",
                          "Hybla's reference RTT",
                          TimeValue(MilliSeconds(25)),
                          MakeTimeAccessor(&TcpRta::m_rtt0),
                          MakeTimeChecker())
            .AddAttribute("SlowStartBySegments",
                          "Enhancement 1: slow start adds the segments acknowledged",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpRta::m_slowStartBySegments),
                          MakeBooleanChecker())
            .AddAttribute("ByteCountedAvoidance",
                          "Enhancement 2: one segment per window of bytes acknowledged",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpRta::m_byteCountedAvoidance),
                          MakeBooleanChecker())
            .AddAttribute("TwoThirdsSsthresh",
                          "Enhancement 3: ssthresh 2/3 of the bytes in flight at a fast retransmit",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpRta::m_twoThirdsSsthresh),
                          MakeBooleanChecker())
            .AddAttribute("BdpBoost",
                          "Enhancement 4: raise ssthresh to a multiple of the BDP at a switch",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpRta::m_bdpBoost),
                          MakeBooleanChecker())
            .AddAttribute("BdpBoostFactor",
                          "The boost's multiple of the BDP",
                          DoubleValue(10),
                          MakeDoubleAccessor(&TcpRta::m_bdpBoostFactor),
                          MakeDoubleChecker<double>(1, 100))
            .AddAttribute("HyblaCountAckedSegments",
                          "Hybla's avoidance step per acknowledged segment, not per ACK",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpRta::m_hyblaCountAckedSegments),
                          MakeBooleanChecker())
            .AddTraceSource("Event",
                            "An event of the algorithm's own: switch_to_hybla or switch_to_newreno",
                            MakeTraceSourceAccessor(&TcpRta::m_eventTrace),
                            "ns3::TracedValueCallback::String");
    return tid;
}

double
TcpRta::Rho() const
{
    Time rtt = m_minRttSinceSwitch == Time::Max() ? m_recent[0] : m_minRttSinceSwitch;
    return std::max(rtt.GetSeconds() / m_rtt0.GetSeconds(), 1.0);
}

void
TcpRta::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t, const Time& rtt)
{
    m_ssThreshJustSet = false;
    if (rtt.IsZero())
    {
        return;
    }
    if (!m_started)
    {
        // Step 1: the three remembered RTTs start at the lower threshold.
        std::fill(std::begin(m_recent), std::end(m_recent), m_lowerThreshold);
        m_started = true;
    }
    m_minRttSinceSwitch = std::min(m_minRttSinceSwitch, rtt);
    m_recent[2] = m_recent[1];
    m_recent[1] = m_recent[0];
    m_recent[0] = rtt;
    bool allAbove = std::all_of(std::begin(m_recent), std::end(m_recent), [this](Time r) {
        return r > m_upperThreshold;
    });
    bool allBelow = std::all_of(std::begin(m_recent), std::end(m_recent), [this](Time r) {
        return r < m_lowerThreshold;
    });
    if ((!m_hybla && allAbove) || (m_hybla && allBelow))
    {
        Switch(tcb, !m_hybla, rtt);
    }
}

void
TcpRta::Switch(Ptr<TcpSocketState> tcb, bool toHybla, Time rtt)
{
    m_hybla = toHybla;
    m_minRttSinceSwitch = rtt;
    m_fraction = 0;
    m_eventTrace(toHybla ? "switch_to_hybla" : "switch_to_newreno");
    if (!m_bdpBoost || tcb->m_srtt.Get().IsZero())
    {
        return;
    }
    double rateBytesPerSecond = tcb->m_cWnd.Get() / tcb->m_srtt.Get().GetSeconds();
    double boosted = m_bdpBoostFactor * rateBytesPerSecond * rtt.GetSeconds();
    uint32_t ssthresh = static_cast<uint32_t>(std::min(boosted, 4294967295.0));
    tcb->m_ssThresh = std::max(tcb->m_ssThresh.Get(), ssthresh);
}

void
TcpRta::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    m_ssThreshJustSet = false;
    if (segmentsAcked == 0)
    {
        return;
    }
    bool inSlowStart = tcb->m_cWnd < tcb->m_ssThresh;
    if (m_hybla)
    {
        GrowHybla(tcb, segmentsAcked, inSlowStart);
    }
    else
    {
        GrowNewReno(tcb, segmentsAcked, inSlowStart);
    }
}

void
TcpRta::GrowNewReno(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, bool inSlowStart)
{
    uint64_t mss = tcb->m_segmentSize;
    uint64_t cwnd = tcb->m_cWnd;
    if (inSlowStart)
    {
        uint64_t step = m_slowStartBySegments ? segmentsAcked * mss : mss;
        cwnd = std::min<uint64_t>(cwnd + step, std::max<uint64_t>(tcb->m_ssThresh, cwnd));
    }
    else if (m_byteCountedAvoidance)
    {
        m_bytesAcked += segmentsAcked * mss;
        if (m_bytesAcked >= cwnd)
        {
            m_bytesAcked -= cwnd;
            cwnd += mss;
        }
    }
    else
    {
        cwnd += std::max<uint64_t>(mss * mss / cwnd, 1);
    }
    tcb->m_cWnd = static_cast<uint32_t>(std::min<uint64_t>(cwnd, UINT32_MAX));
}

void
TcpRta::GrowHybla(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, bool inSlowStart)
{
    double mss = tcb->m_segmentSize;
    double rho = Rho();
    double segments = inSlowStart ? std::exp2(std::min(rho, MAX_SLOW_START_EXPONENT)) - 1.0
                                  : rho * rho * mss / tcb->m_cWnd.Get() *
                                        (m_hyblaCountAckedSegments ? segmentsAcked : 1);
    m_fraction += segments * mss;
    double whole = std::floor(m_fraction);
    m_fraction -= whole;
    uint64_t cwnd = std::min<uint64_t>(tcb->m_cWnd.Get() + static_cast<uint64_t>(whole), UINT32_MAX);
    if (inSlowStart && cwnd > tcb->m_ssThresh)
    {
        cwnd = tcb->m_ssThresh;
    }
    tcb->m_cWnd = static_cast<uint32_t>(cwnd);
}

uint32_t
TcpRta::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    m_lastInFlight = bytesInFlight;
    m_ssThreshJustSet = true;
    m_bytesAcked = 0;
    m_fraction = 0;
    uint64_t ssthresh = m_twoThirdsSsthresh ? uint64_t{bytesInFlight} * 2 / 3 : bytesInFlight / 2;
    return static_cast<uint32_t>(std::max<uint64_t>(ssthresh, 2 * tcb->m_segmentSize));
}

void
TcpRta::CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t newState)
{
    // ns-3 computes ssthresh for a timeout with the same GetSsThresh as for a fast retransmit
    // (tcp-socket-base.cc ReTxTimeout) and says which it was only here: a timeout takes half.
    if (newState == TcpSocketState::CA_LOSS && m_ssThreshJustSet && m_twoThirdsSsthresh)
    {
        tcb->m_ssThresh = std::max(m_lastInFlight / 2, 2 * tcb->m_segmentSize);
    }
    m_ssThreshJustSet = false;
}

} // namespace ns3
