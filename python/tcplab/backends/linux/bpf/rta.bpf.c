/* tcplab_rta: tcplab's `rta` (crates/tcplab-core/src/cc/rta.rs, docs/algorithms/rta.md) as a
 * kernel congestion control: TCP-RTA (papers/tcp-rta.txt, section 3, Algorithms 1 and 2),
 * NewReno that switches to Hybla's growth after three consecutive RTT samples above
 * upper_threshold and back after three below lower_threshold ("switch_to_hybla",
 * "switch_to_newreno" in the events table).
 *
 * As the simulator: the three remembered samples start at lower_threshold; at a switch cwnd,
 * ssthresh and the avoidance counter carry over, Hybla's fraction restarts, and (bdp_boost)
 * ssthresh is raised to at least bdp_boost_factor x the delivery rate x the current RTT sample
 * (an unbounded ssthresh is replaced). NewReno mode: slow start by segments acknowledged (or one
 * per ACK), avoidance +1 segment per cwnd segments acknowledged (or 1/cwnd per ACK). Hybla mode:
 * rho = max(RTT / rtt0, 1) from the smallest RTT since the last switch (samples or smoothed RTT,
 * rho_from); slow start adds 2^min(rho, 16) - 1 segments per ACK (not past ssthresh), avoidance
 * rho^2 / cwnd per ACK (or per segment acknowledged). ssthresh = max(2/3 (or 1/2) of the flight,
 * 2) on a fast retransmit or ECN echo, max(flight / 2, 2) on a timeout.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - Windows are whole segments. The simulator keeps cwnd in bytes; its byte-counted avoidance
 *   (+1 SMSS per cwnd bytes acknowledged) is the same count in segments (snd_cwnd_cnt), and its
 *   fractional Hybla growth is kept here in 2^-20 segment and added to snd_cwnd in whole
 *   segments. Hybla's rho^2 / cwnd divides by the whole-segment cwnd.
 * - 2^rho for a fractional rho (rho in 1/1024) is 2^int(rho) times a table of 2^(k/16) with
 *   linear interpolation between its entries: at most 0.03% above the exact value.
 * - RTT samples are ack_sample.rtt_us in pkts_acked (every ACK, microseconds, Karn's rule
 *   applied); the smoothed RTT is srtt_us >> 3; the switch test runs there, growth in
 *   cong_avoid (which the kernel calls only when the window may grow, as the simulator grows
 *   only on in-order ACKs outside recovery).
 * - The delivery rate of the boost is the kernel's last saved rate sample (rate_delivered /
 *   rate_interval_us, what TCP_INFO reports): at pkts_acked time the sample of the ACK being
 *   processed is not yet taken (tcp_rate_gen runs later in tcp_ack), so it is the previous ACK's.
 *   The boosted ssthresh is at least 2 segments.
 * - The ssthresh hook cannot tell a fast retransmit from a timeout: it returns the fast
 *   retransmit's value and keeps the flight; cwnd_event(CA_EVENT_LOSS), which tcp_enter_loss
 *   raises right after, sets the timeout's. Loss recovery (SACK, RACK, PRR) is the kernel's.
 * - undo_cwnd keeps the window, as the simulator's RTA (no undo); the kernel still restores
 *   ssthresh from prior_ssthresh on a spurious reduction.
 *
 * Every simulator parameter is exposed (bdp_boost_factor in thousandths, durations in
 * microseconds, rho_from as its index). The state fits icsk_ca_priv. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, upper_threshold_us, 800000);
TCPLAB_PARAM(__u32, lower_threshold_us, 300000);
TCPLAB_PARAM(__u32, rtt0_us, 25000);
TCPLAB_PARAM(__u32, slow_start_by_segments, 1);
TCPLAB_PARAM(__u32, byte_counted_avoidance, 1);
TCPLAB_PARAM(__u32, two_thirds_ssthresh, 1);
TCPLAB_PARAM(__u32, bdp_boost, 1);
TCPLAB_PARAM(__u32, bdp_boost_factor_milli, 10000);
TCPLAB_PARAM(__u32, rho_from, 0); /* 0 samples, 1 srtt */
TCPLAB_PARAM(__u32, hybla_count_acked_segments, 0);

#define FRACTION_SHIFT 20
#define RHO_SHIFT 10
/* Hybla's slow-start exponent cap (rta.rs MAX_SLOW_START_EXPONENT). */
#define MAX_SLOW_START_EXPONENT 16

enum mode { MODE_NEWRENO, MODE_HYBLA };

struct rta {
	__u32 recent[3]; /* RTT-Current, RTT-Prev, RTT-Prev-Prev, microseconds */
	__u32 min_rtt_since_switch_us; /* 0: none */
	__u32 flight_at_reduction;
	__u32 mode;
	__u64 fraction; /* Hybla's growth not yet a whole segment, 2^-20 segment */
};

/* 2^(k/16) for k = 0..16, in 2^-20. */
static const __u32 exp2_sixteenths[17] = {
	1048576, 1095000, 1143480, 1194106, 1246974, 1302182, 1359835, 1420040, 1482910,
	1548564, 1617125, 1688722, 1763488, 1841564, 1923097, 2008240, 2097152,
};

/* 2^rho in 2^-20, rho in 1/1024, at most 2^16. */
static __always_inline __u64 exp2_fixed(__u64 rho)
{
	__u32 whole, part, index, rest;
	__u64 low, high;

	if (rho >= (MAX_SLOW_START_EXPONENT << RHO_SHIFT))
		return 1ULL << (MAX_SLOW_START_EXPONENT + FRACTION_SHIFT);
	whole = rho >> RHO_SHIFT;
	part = rho & ((1 << RHO_SHIFT) - 1);
	index = (part >> 6) & 15;
	rest = part & 63;
	low = exp2_sixteenths[index];
	high = exp2_sixteenths[index + 1];
	return (low + (high - low) * rest / 64) << whole;
}

static __always_inline struct rta *rta_of(struct sock *sk)
{
	return TCPLAB_STATE(struct rta, sk);
}

/* rho in 1/1024: max(RTT / rtt0, 1), the RTT the smallest since the switch or the latest. */
static __always_inline __u64 rho_fixed(struct rta *s)
{
	__u64 rtt = s->min_rtt_since_switch_us ? s->min_rtt_since_switch_us : s->recent[0];
	__u64 rho = (rtt << RHO_SHIFT) / (param_rtt0_us ? param_rtt0_us : 1);

	return tcplab_max(rho, 1ULL << RHO_SHIFT);
}

static __always_inline void boost(struct sock *sk, __u32 rtt)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 boosted;

	/* factor x rate x RTT, in segments: the rate in segments per microsecond. */
	if (tp->rate_interval_us > 0)
		boosted = (__u64)param_bdp_boost_factor_milli * tp->rate_delivered * rtt /
			  ((__u64)tp->rate_interval_us * 1000);
	else
		boosted = (__u64)param_bdp_boost_factor_milli * tp->snd_cwnd * rtt /
			  ((__u64)tcplab_max(tp->srtt_us >> 3, 1U) * 1000);
	boosted = tcplab_min(tcplab_max(boosted, 2ULL), (__u64)TCP_INFINITE_SSTHRESH - 1);
	if (tp->snd_ssthresh >= TCP_INFINITE_SSTHRESH)
		tp->snd_ssthresh = boosted;
	else
		tp->snd_ssthresh = tcplab_max((__u64)tp->snd_ssthresh, boosted);
}

/* Algorithm 1: remember the sample; switch when the last three agree. */
static __always_inline void observe_rtt(struct sock *sk, struct rta *s, __u32 rtt)
{
	bool to_hybla, to_newreno;

	s->recent[2] = s->recent[1];
	s->recent[1] = s->recent[0];
	s->recent[0] = rtt;
	to_hybla = s->mode == MODE_NEWRENO && s->recent[0] > param_upper_threshold_us &&
		   s->recent[1] > param_upper_threshold_us && s->recent[2] > param_upper_threshold_us;
	to_newreno = s->mode == MODE_HYBLA && s->recent[0] < param_lower_threshold_us &&
		     s->recent[1] < param_lower_threshold_us && s->recent[2] < param_lower_threshold_us;
	if (!to_hybla && !to_newreno)
		return;
	s->mode = to_hybla ? MODE_HYBLA : MODE_NEWRENO;
	s->min_rtt_since_switch_us = param_rho_from == 0 ? rtt : 0;
	s->fraction = 0;
	if (param_bdp_boost)
		boost(sk, rtt);
	if (to_hybla)
		TCPLAB_EVENT(sk, "switch_to_hybla", tcp_sk(sk)->snd_cwnd);
	else
		TCPLAB_EVENT(sk, "switch_to_newreno", tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops")
void BPF_PROG(rta_init, struct sock *sk)
{
	struct rta *s = rta_of(sk);

	s->recent[0] = s->recent[1] = s->recent[2] = param_lower_threshold_us;
	s->min_rtt_since_switch_us = 0;
	s->flight_at_reduction = 0;
	s->mode = MODE_NEWRENO;
	s->fraction = 0;
}

SEC("struct_ops")
void BPF_PROG(rta_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct rta *s = rta_of(sk);
	__u32 rtt = sample->rtt_us > 0 ? sample->rtt_us : 1;
	__u32 for_rho = 0;

	if (param_rho_from == 0) {
		if (sample->rtt_us >= 0)
			for_rho = rtt;
	} else {
		for_rho = tp->srtt_us >> 3;
	}
	if (for_rho && (!s->min_rtt_since_switch_us || for_rho < s->min_rtt_since_switch_us))
		s->min_rtt_since_switch_us = for_rho;
	if (sample->rtt_us >= 0)
		observe_rtt(sk, s, rtt);
}

SEC("struct_ops")
void BPF_PROG(rta_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct rta *s = rta_of(sk);
	bool in_slow_start = tcplab_in_slow_start(tp);
	__u64 increase, whole;

	if (!acked)
		return;
	if (s->mode == MODE_NEWRENO) {
		if (in_slow_start) {
			__u32 step = param_slow_start_by_segments ? acked : 1;

			tp->snd_cwnd = tcplab_min(tp->snd_cwnd + step, tcplab_max(tp->snd_ssthresh, tp->snd_cwnd));
		} else if (param_byte_counted_avoidance) {
			tp->snd_cwnd_cnt += acked;
			if (tp->snd_cwnd_cnt >= tp->snd_cwnd) {
				tp->snd_cwnd_cnt -= tp->snd_cwnd;
				tp->snd_cwnd++;
			}
		} else {
			tcplab_additive_increase(tp, tp->snd_cwnd, 1);
		}
	} else {
		__u64 rho = rho_fixed(s);

		if (in_slow_start) {
			increase = exp2_fixed(rho) - (1ULL << FRACTION_SHIFT);
		} else {
			/* rho^2 / cwnd: rho^2 is in 2^-20 already (rho in 2^-10). */
			increase = rho * rho / tcplab_max(tp->snd_cwnd, 1U);
			if (param_hybla_count_acked_segments)
				increase *= acked;
		}
		s->fraction += increase;
		whole = s->fraction >> FRACTION_SHIFT;
		s->fraction &= (1ULL << FRACTION_SHIFT) - 1;
		whole = tcplab_min((__u64)tp->snd_cwnd + whole, 0xffffffffULL);
		if (in_slow_start && whole > tp->snd_ssthresh)
			whole = tp->snd_ssthresh;
		tp->snd_cwnd = whole;
	}
	tp->snd_cwnd = tcplab_min(tp->snd_cwnd, tp->snd_cwnd_clamp);
}

SEC("struct_ops")
__u32 BPF_PROG(rta_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct rta *s = rta_of(sk);
	__u32 flight = tcplab_packets_in_flight(tp);

	s->flight_at_reduction = flight;
	s->fraction = 0;
	tp->snd_cwnd_cnt = 0;
	return tcplab_max(param_two_thirds_ssthresh ? flight * 2 / 3 : flight / 2, 2U);
}

SEC("struct_ops")
void BPF_PROG(rta_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	/* tcp_enter_loss asked for ssthresh: a timeout, FlightSize / 2. */
	if (event == CA_EVENT_LOSS)
		tcp_sk(sk)->snd_ssthresh = tcplab_max(rta_of(sk)->flight_at_reduction / 2, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(rta_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_rta = {
	.init = (void *)rta_init,
	.ssthresh = (void *)rta_ssthresh,
	.cong_avoid = (void *)rta_cong_avoid,
	.cwnd_event = (void *)rta_cwnd_event,
	.pkts_acked = (void *)rta_pkts_acked,
	.undo_cwnd = (void *)rta_undo_cwnd,
	.name = "tcplab_rta",
};
