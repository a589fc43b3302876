/* tcplab_vegas: tcplab's `vegas` (crates/tcplab-core/src/cc/vegas.rs, docs/algorithms/vegas.md)
 * as a kernel congestion control: TCP Vegas (Brakmo and Peterson, "TCP Vegas: end to end
 * congestion avoidance on a global Internet", IEEE JSAC 1995) with the simulator's rules.
 *
 * Once per round (the first ACK past snd_nxt as it was when the round began), with more than 2
 * RTT samples in the round: rtt = the round's smallest sample, base = the smallest ever,
 * diff = cwnd (rtt - base) / base segments;
 * - slow start and diff > gamma: cwnd = max(min(cwnd, cwnd base / rtt + 1), 2), ssthresh =
 *   max(min(ssthresh, cwnd - 1), 2);
 * - slow start otherwise: slow start by this ACK's segments;
 * - congestion avoidance: diff > beta -> cwnd - 1 (>= 2), ssthresh = max(min(ssthresh,
 *   cwnd - 1), 2); diff < alpha -> cwnd + 1; else hold;
 * then cwnd >= 2 and (ssthresh set) ssthresh >= 3/4 cwnd. Fewer than 3 samples: Reno for the
 * round (slow start, then one segment per cwnd), only while cwnd-limited when
 * freeze_when_not_cwnd_limited. Inside a round, slow start grows by the acknowledged segments
 * (no cwnd-limited check, as the simulator). Losses: ssthresh = max(cwnd / 2, 2).
 *
 * Where the kernel's inputs differ from the simulator's:
 * - Windows are the kernel's snd_cwnd / snd_ssthresh in segments, as the simulator's
 *   SegmentWindow; the cwnd the kernel sets itself (cwnd = ssthresh when recovery ends, PRR
 *   during it, in_flight + 1 after a timeout, tcp_undo_cwnd_reduction) is the same rule the
 *   simulator's sender applies.
 * - RTT samples are pkts_acked's rtt_us (include/net/tcp.h struct ack_sample; -1 when the ACK
 *   gave none): microseconds, from the most recently sent segment the ACK covers or SACKs, as
 *   the simulator's rtt_sample, used as measured (no +1 us). Rounds compare sequence numbers
 *   with the kernel's wrap-safe `after` instead of byte offsets.
 * - "The ACK may raise cwnd" (the simulator's may_raise_cwnd: snd_una advanced, not in recovery
 *   or a CWR round, not the ACK that ends one): the kernel calls cong_avoid only on such ACKs
 *   (tcp_cong_control: not in CWR/Recovery, tcp_may_raise_cwnd), except that it also calls it
 *   on the ACK whose processing returned to Open from CWR or Recovery; set_state marks that ACK
 *   and cong_avoid treats it as one that may not raise. An ACK that pkts_acked saw (data
 *   acknowledged or an RTT sample, the simulator's condition for on_ack) but that got no
 *   cong_avoid suspends Vegas; the next cong_avoid restarts the round, as the simulator's
 *   `active`.
 * - The kernel calls ssthresh once per recovery episode (tcp_enter_loss does not reduce again
 *   for a timeout inside a recovery whose window has not been acknowledged); the simulator
 *   halves again at every timeout.
 * - The kernel's recovery (SACK, RACK, PRR, F-RTO, undo) is its own.
 * Every parameter of the simulator is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, alpha, 2);
TCPLAB_PARAM(__u32, beta, 4);
TCPLAB_PARAM(__u32, gamma, 1);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

#define NO_RTT 0xffffffffU

struct vegas {
	__u32 base_rtt_us;      /* smallest sample ever; NO_RTT before the first */
	__u32 round_min_us;     /* smallest sample of this round; NO_RTT if none */
	__u32 round_samples;
	__u32 round_end;        /* the round ends when an ACK passes this sequence number */
	__u8 active;            /* 0 after an ACK that could not raise cwnd */
	__u8 unraised;          /* pkts_acked saw this ACK; cong_avoid has not yet */
	__u8 reduction_ended;   /* this ACK returned the sender to Open from CWR or Recovery */
};

static __always_inline bool seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

static __always_inline void start_round(struct vegas *v, const struct tcp_sock *tp)
{
	v->round_end = tp->snd_nxt;
	v->round_samples = 0;
	v->round_min_us = NO_RTT;
}

SEC("struct_ops")
void BPF_PROG(vegas_init, struct sock *sk)
{
	struct vegas *v = TCPLAB_STATE(struct vegas, sk);

	v->base_rtt_us = NO_RTT;
	v->active = 1;
	v->unraised = 0;
	v->reduction_ended = 0;
	start_round(v, tcp_sk(sk));
}

SEC("struct_ops")
void BPF_PROG(vegas_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct vegas *v = TCPLAB_STATE(struct vegas, sk);
	__s32 rtt = sample->rtt_us;

	/* The previous ACK reached the algorithm but could not raise cwnd. */
	if (v->unraised)
		v->active = 0;
	v->reduction_ended = 0;
	v->unraised = sample->pkts_acked > 0 || rtt >= 0;
	if (rtt < 0)
		return;
	v->base_rtt_us = tcplab_min(v->base_rtt_us, (__u32)rtt);
	v->round_min_us = tcplab_min(v->round_min_us, (__u32)rtt);
	v->round_samples++;
}

SEC("struct_ops")
void BPF_PROG(vegas_set_state, struct sock *sk, __u8 new_state)
{
	struct vegas *v = TCPLAB_STATE(struct vegas, sk);
	__u8 old = inet_csk(sk)->icsk_ca_state; /* set_state runs before the kernel stores it */

	if (new_state == TCP_CA_Open && (old == TCP_CA_CWR || old == TCP_CA_Recovery))
		v->reduction_ended = 1;
}

/* Too few samples for Vegas: Reno for the round. */
static __always_inline void reno_round(struct tcp_sock *tp, __u32 acked)
{
	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	tcplab_additive_increase(tp, tp->snd_cwnd, acked);
}

static __always_inline void end_of_round(struct vegas *v, struct tcp_sock *tp, __u32 acked)
{
	__u64 base = v->base_rtt_us, rtt = v->round_min_us;
	__u32 cwnd = tp->snd_cwnd;
	__u32 diff;

	if (base == NO_RTT || rtt == NO_RTT || v->round_samples <= 2) {
		reno_round(tp, acked);
		return;
	}
	/* cwnd < 2^32 and rtt - base < 2^32: the product fits in u64. */
	diff = (__u32)((__u64)cwnd * (rtt - base) / tcplab_max(base, 1ULL));
	if (diff > param_gamma && tcplab_in_slow_start(tp)) {
		__u32 target = (__u32)((__u64)cwnd * base / tcplab_max(rtt, 1ULL));

		tp->snd_cwnd = tcplab_max(tcplab_min(cwnd, target + 1), 2U);
		tp->snd_ssthresh = tcplab_max(tcplab_min(tp->snd_ssthresh, tp->snd_cwnd - 1), 2U);
	} else if (tcplab_in_slow_start(tp)) {
		tcplab_slow_start(tp, acked);
	} else if (diff > param_beta) {
		tp->snd_cwnd = tcplab_max(cwnd - 1, 2U);
		tp->snd_ssthresh = tcplab_max(tcplab_min(tp->snd_ssthresh, tp->snd_cwnd - 1), 2U);
	} else if (diff < param_alpha) {
		tp->snd_cwnd = tcplab_min(cwnd + 1, tp->snd_cwnd_clamp);
	}
	tp->snd_cwnd = tcplab_max(tp->snd_cwnd, 2U);
	if (tp->snd_ssthresh < TCP_INFINITE_SSTHRESH) {
		__u32 three_quarters = (tp->snd_cwnd >> 1) + (tp->snd_cwnd >> 2);

		tp->snd_ssthresh = tcplab_max(tp->snd_ssthresh, three_quarters);
	}
}

SEC("struct_ops")
void BPF_PROG(vegas_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct vegas *v = TCPLAB_STATE(struct vegas, sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (v->reduction_ended) {
		/* The ACK that ended a recovery or CWR round: no growth, as the simulator. */
		v->active = 0;
		v->unraised = 0;
		return;
	}
	v->unraised = 0;
	if (!v->active) {
		v->active = 1;
		start_round(v, tp);
	}
	if (seq_after(tp->snd_una, v->round_end)) {
		v->round_end = tp->snd_nxt;
		end_of_round(v, tp, acked);
		v->round_samples = 0;
		v->round_min_us = NO_RTT;
	} else if (tcplab_in_slow_start(tp)) {
		tcplab_slow_start(tp, acked);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(vegas_ssthresh, struct sock *sk)
{
	return tcplab_max(tcp_sk(sk)->snd_cwnd >> 1, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(vegas_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_vegas = {
	.init = (void *)vegas_init,
	.ssthresh = (void *)vegas_ssthresh,
	.cong_avoid = (void *)vegas_cong_avoid,
	.set_state = (void *)vegas_set_state,
	.pkts_acked = (void *)vegas_pkts_acked,
	.undo_cwnd = (void *)vegas_undo_cwnd,
	.name = "tcplab_vegas",
};
