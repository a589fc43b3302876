/* tcplab_yeah: tcplab's `yeah` (crates/tcplab-core/src/cc/yeah.rs, docs/algorithms/yeah.md) as a
 * kernel congestion control: YeAH-TCP (Baiocchi, Castellani and Vacirca, "YeAH-TCP: yet another
 * highspeed TCP", PFLDnet 2007) with the simulator's rules.
 *
 * Fast mode grows as Scalable TCP (one segment per min(cwnd, scalable_ai_count) acknowledged
 * segments), slow mode as Reno; slow start's leftover goes to the mode's growth. Once per round
 * (the first ACK past snd_nxt as it was when the round began, with more than 2 RTT samples in
 * it), with RTT = the round's smallest sample and RTTmin = the smallest ever:
 * - Q = cwnd (RTT - RTTmin) / RTT segments;
 * - slow mode when Q > alpha or RTT - RTTmin > RTTmin / phi, else fast mode;
 * - precautionary decongestion when Q > alpha and cwnd > reno_count: cwnd -= min(Q / gamma,
 *   cwnd >> epsilon), not below reno_count, ssthresh = cwnd (event "yeah_decongestion", value
 *   the new cwnd);
 * - reno_count: max(cwnd / 2, 2) on the first slow-mode round, then + 1 per slow-mode round;
 *   back to 2 after zeta fast-mode rounds.
 * A loss removes max(min(last Q, max(cwnd / 2, 2)), cwnd >> delta) unless the last rho rounds
 * were all slow (then max(cwnd / 2, 2)); reno_count halves (>= 2); ssthresh >= 2. The round
 * restarts on the first ACK that may raise cwnd after a congestion event. Growth and the round
 * both stop while the flow is not cwnd-limited (freeze_when_not_cwnd_limited).
 *
 * Where the kernel's inputs differ from the simulator's:
 * - RTT samples are pkts_acked's rtt_us (microseconds, -1 when none), the simulator's
 *   rtt_sample, used as measured; RTTmin / phi and Q are computed in microseconds.
 * - Windows and the growth credit are the kernel's snd_cwnd, snd_ssthresh and snd_cwnd_cnt in
 *   segments (the simulator's SegmentWindow); the kernel sets cwnd itself during and after
 *   recovery (PRR, then cwnd = ssthresh), after a timeout (in_flight + 1) and on undo, with the
 *   rules the simulator's sender applies.
 * - cong_avoid runs only on ACKs that may raise cwnd (tcp_cong_control), the simulator's
 *   may_raise_cwnd, except the ACK whose processing returned to Open from CWR or Recovery:
 *   set_state marks it and cong_avoid returns at once for it, as the simulator.
 * - Congestion events: ssthresh (fast retransmit, ECN, a timeout from the open state) and
 *   set_state(TCP_CA_Loss) (every timeout) start the wait for a fresh round. The kernel calls
 *   ssthresh once per recovery episode; the simulator also recomputes it (and halves
 *   reno_count again) for a timeout inside a recovery.
 * - Rounds compare sequence numbers with a wrap-safe `after`.
 * Every parameter of the simulator is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, alpha, 80);
TCPLAB_PARAM(__u32, gamma, 1);
TCPLAB_PARAM(__u32, delta, 3);
TCPLAB_PARAM(__u32, epsilon, 1);
TCPLAB_PARAM(__u32, phi, 8);
TCPLAB_PARAM(__u32, rho, 16);
TCPLAB_PARAM(__u32, zeta, 50);
TCPLAB_PARAM(__u32, scalable_ai_count, 100);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

#define NO_RTT 0xffffffffU

struct yeah {
	__u32 base_rtt_us;      /* RTTmin; NO_RTT before the first sample */
	__u32 round_min_us;     /* NO_RTT if the round has no sample yet */
	__u32 round_samples;
	__u32 round_end;        /* the round ends when an ACK passes this sequence number */
	__u32 last_queue;       /* Q of the last evaluated round, segments */
	__u32 slow_rounds;      /* consecutive slow-mode rounds (0: fast mode) */
	__u32 reno_count;
	__u32 fast_count;
	__u8 recovering;        /* a congestion event since the last ACK that could raise cwnd */
	__u8 reduction_ended;   /* this ACK returned the sender to Open from CWR or Recovery */
};

static __always_inline bool seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

static __always_inline void start_round(struct yeah *y, __u32 snd_nxt)
{
	y->round_end = snd_nxt;
	y->round_samples = 0;
	y->round_min_us = NO_RTT;
}

SEC("struct_ops")
void BPF_PROG(yeah_init, struct sock *sk)
{
	struct yeah *y = TCPLAB_STATE(struct yeah, sk);

	y->base_rtt_us = NO_RTT;
	y->last_queue = 0;
	y->slow_rounds = 0;
	y->reno_count = 2;
	y->fast_count = 0;
	y->recovering = 0;
	y->reduction_ended = 0;
	start_round(y, tcp_sk(sk)->snd_nxt);
}

SEC("struct_ops")
void BPF_PROG(yeah_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct yeah *y = TCPLAB_STATE(struct yeah, sk);
	__s32 rtt = sample->rtt_us;

	y->reduction_ended = 0;
	if (rtt < 0)
		return;
	y->base_rtt_us = tcplab_min(y->base_rtt_us, (__u32)rtt);
	y->round_min_us = tcplab_min(y->round_min_us, (__u32)rtt);
	y->round_samples++;
}

/* The once-per-round decision: mode and precautionary decongestion. */
static __always_inline void end_of_round(struct sock *sk, struct yeah *y, __u64 base, __u64 rtt)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd;
	__u64 queue64 = (__u64)cwnd * (rtt > base ? rtt - base : 0) / tcplab_max(rtt, 1ULL);
	__u32 queue = (__u32)queue64; /* below cwnd */
	__u64 delay = rtt > base ? rtt - base : 0;

	if (queue > param_alpha || delay > base / tcplab_max(param_phi, 1U)) {
		if (queue > param_alpha && cwnd > y->reno_count) {
			__u32 reduction = tcplab_min(queue / tcplab_max(param_gamma, 1U),
						     cwnd >> (param_epsilon & 31));
			__u32 cut = tcplab_max(cwnd - reduction, y->reno_count);

			tp->snd_cwnd = tcplab_max(cut, 1U);
			tp->snd_ssthresh = tcplab_max(tp->snd_cwnd, 2U);
			TCPLAB_EVENT(sk, "yeah_decongestion", tp->snd_cwnd);
		}
		if (y->reno_count <= 2)
			y->reno_count = tcplab_max(tp->snd_cwnd / 2, 2U);
		else
			y->reno_count++;
		y->slow_rounds = tcplab_min(y->slow_rounds + 1, 0xffffffU);
	} else {
		y->fast_count++;
		if (y->fast_count > param_zeta) {
			y->reno_count = 2;
			y->fast_count = 0;
		}
		y->slow_rounds = 0;
	}
	y->last_queue = queue;
}

SEC("struct_ops")
void BPF_PROG(yeah_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct yeah *y = TCPLAB_STATE(struct yeah, sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (y->reduction_ended)
		return;
	if (y->recovering) {
		/* The congestion event is over: a fresh round. */
		y->recovering = 0;
		start_round(y, tp->snd_nxt);
	}
	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (tcplab_in_slow_start(tp))
		acked = tcplab_slow_start(tp, acked);
	if (acked) {
		__u32 w = tp->snd_cwnd;

		if (y->slow_rounds == 0)
			w = tcplab_min(w, param_scalable_ai_count);
		tcplab_additive_increase(tp, w, acked);
	}
	if (seq_after(tp->snd_una, y->round_end)) {
		if (y->base_rtt_us != NO_RTT && y->round_min_us != NO_RTT && y->round_samples > 2)
			end_of_round(sk, y, y->base_rtt_us, y->round_min_us);
		start_round(y, tp->snd_nxt);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(yeah_ssthresh, struct sock *sk)
{
	struct yeah *y = TCPLAB_STATE(struct yeah, sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;
	__u32 half = tcplab_max(cwnd / 2, 2U);
	__u32 reduction;

	if (y->slow_rounds < param_rho)
		reduction = tcplab_max(tcplab_min(y->last_queue, half), cwnd >> (param_delta & 31));
	else
		reduction = half;
	y->fast_count = 0;
	y->reno_count = tcplab_max(y->reno_count / 2, 2U);
	y->recovering = 1;
	return tcplab_max(cwnd > reduction ? cwnd - reduction : 0, 2U);
}

SEC("struct_ops")
void BPF_PROG(yeah_set_state, struct sock *sk, __u8 new_state)
{
	struct yeah *y = TCPLAB_STATE(struct yeah, sk);
	__u8 old = inet_csk(sk)->icsk_ca_state; /* set_state runs before the kernel stores it */

	if (new_state == TCP_CA_Loss)
		y->recovering = 1;
	else if (new_state == TCP_CA_Open && (old == TCP_CA_CWR || old == TCP_CA_Recovery))
		y->reduction_ended = 1;
}

SEC("struct_ops")
__u32 BPF_PROG(yeah_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_yeah = {
	.init = (void *)yeah_init,
	.ssthresh = (void *)yeah_ssthresh,
	.cong_avoid = (void *)yeah_cong_avoid,
	.set_state = (void *)yeah_set_state,
	.pkts_acked = (void *)yeah_pkts_acked,
	.undo_cwnd = (void *)yeah_undo_cwnd,
	.name = "tcplab_yeah",
};
