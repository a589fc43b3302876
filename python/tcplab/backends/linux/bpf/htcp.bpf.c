/* tcplab_htcp: tcplab's `htcp` (crates/tcplab-core/src/cc/htcp.rs, docs/algorithms/htcp.md) as a
 * kernel congestion control: H-TCP (Leith and Shorten, "H-TCP: TCP for high-speed and
 * long-distance networks", PFLDnet 2004) with the simulator's rules.
 *
 * The increase depends on delta, the time since the last congestion event ended:
 * factor = 1 up to delta_l, else 1 + 10 d + (d / 2)^2 (d = delta - delta_l in seconds); with
 * rtt_scaling x RTTmin / 100 ms (the ratio clamped to [0.1, 2]) and kept >= 1; alpha =
 * 2 factor (1 - beta). cwnd grows one segment once credit x alpha >= cwnd (the credit tested
 * before this ACK's segments are added), and alpha is recomputed at every such step and at each
 * congestion event. At a congestion event: beta = RTTmin / RTTmax in [64, 102] / 128 if the
 * previous event already had stable throughput (modeswitch) and RTTmin > 10 ms, else 1/2; with
 * bandwidth_switch, 1/2 when the largest throughput since the previous event is not within
 * 4 old <= 5 new <= 6 old. RTTmax grows only by samples at most 20 ms above it, outside
 * recovery, and fades to RTTmin + 95% of its excess at each event. ssthresh = max(cwnd beta /
 * 128, 2). The throughput (whole segments per second) is measured once per window of segments
 * (less alpha) and at least RTTmin, smoothed 3/4 old + 1/4 new, restarted within 3 RTTmin of an
 * event. A spurious event that is undone restores the previous event's time, RTTmax and old
 * maximum throughput (as saved after the event's updates, as the simulator).
 *
 * Fixed point: alpha and the factor in 1/65536 segments (the simulator: f64), beta in 1/128 as
 * the simulator; times in microseconds (tcp_sock.tcp_mstamp, the simulator: nanoseconds).
 * d is capped at 2^32 us (71 minutes) so that d^2 fits in 64 bits.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - RTT samples are pkts_acked's rtt_us (microseconds, -1 when none), the simulator's
 *   rtt_sample; the segment count for the throughput is pkts_acked's pkts_acked (cumulatively
 *   acknowledged segments, SACKed ones counted when the cumulative ACK covers them; the
 *   simulator counts them when SACKed). "Outside recovery" is the socket's state before the
 *   ACK is processed (icsk_ca_state Open or Disorder), so the ACK that ends a recovery counts
 *   as inside it, as the simulator; the ACK that starts one counts as outside (the simulator:
 *   inside).
 * - The end of a congestion event (from when delta counts) is set_state(TCP_CA_Open) from CWR,
 *   Recovery or Loss; the simulator takes the first ACK after that (one ACK later).
 * - Windows and the credit are the kernel's snd_cwnd, snd_ssthresh and snd_cwnd_cnt; the
 *   kernel sets cwnd itself during and after recovery (PRR, cwnd = ssthresh), after a timeout
 *   (in_flight + 1) and on undo (ssthresh back to its prior value), with the rules the
 *   simulator's sender applies.
 * - cong_avoid runs only on ACKs that may raise cwnd (tcp_cong_control), the simulator's
 *   may_raise_cwnd, except the ACK whose processing returned to Open from CWR or Recovery:
 *   set_state marks it and cong_avoid returns at once for it, as the simulator.
 * - The kernel calls ssthresh once per recovery episode; the simulator also runs its
 *   congestion-event rules for a timeout inside a recovery.
 * Every parameter of the simulator is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u64, delta_l_us, 1000000);
TCPLAB_PARAM(__u32, rtt_scaling, 1);
TCPLAB_PARAM(__u32, bandwidth_switch, 1);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

#define ONE 65536ULL            /* 1.0 in alpha's and the factor's fixed point */
#define BETA_SCALE 128U
#define BETA_MIN 64U
#define BETA_MAX 102U
#define REFERENCE_RTT_US 100000ULL
#define MAX_RTT_STEP_US 20000U
#define MIN_RTT_FOR_ADAPTIVE_BETA_US 10000U

struct htcp {
	__u64 alpha;                /* segments per window of ACKs, 1/65536 */
	__u64 last_cong_us;         /* the last congestion event (its end once it is over) */
	__u64 undo_last_cong_us;
	__u64 rate_since_us;
	__u32 counted;              /* segments counted since rate_since_us */
	__u32 rate;                 /* throughput estimate, segments per second */
	__u32 max_rate;
	__u32 old_max_rate;
	__u32 undo_old_max_rate;
	__u32 min_rtt_us;           /* 0 before the first sample */
	__u32 max_rtt_us;
	__u32 undo_max_rtt_us;
	__u8 beta;                  /* 1/128 */
	__u8 modeswitch;
	__u8 undo_valid;            /* a congestion event that may still be undone */
	__u8 reduction_ended;       /* this ACK returned the sender to Open from CWR or Recovery */
};

/* The increase factor before the 2 (1 - beta) scaling, 1/65536. */
static __always_inline __u64 alpha_factor(__u64 delta_us)
{
	__u64 d, quarter_square;

	if (delta_us <= param_delta_l_us)
		return ONE;
	d = tcplab_min(delta_us - param_delta_l_us, 0xffffffffULL);
	/* (d / 2)^2 in s^2: d^2 / 4 us^2, over 10^6 twice (d^2 < 2^64). */
	quarter_square = d * d / 4 / USEC_PER_SEC * ONE / USEC_PER_SEC;
	return ONE + d * 10 * ONE / USEC_PER_SEC + quarter_square;
}

static __always_inline void update_alpha(struct htcp *ca, __u64 now_us)
{
	__u64 delta = now_us > ca->last_cong_us ? now_us - ca->last_cong_us : 0;
	__u64 factor = alpha_factor(delta);

	if (param_rtt_scaling && ca->min_rtt_us > 0) {
		__u64 ratio = (__u64)ca->min_rtt_us * ONE / REFERENCE_RTT_US;

		ratio = tcplab_min(tcplab_max(ratio, ONE / 10), 2 * ONE);
		/* factor < 2^45 (d < 2^32 us), ratio <= 2^17: the product fits. */
		factor = tcplab_max(factor * ratio / ONE, ONE);
	}
	ca->alpha = 2 * factor * (BETA_SCALE - ca->beta) / BETA_SCALE;
}

static __always_inline void update_beta(struct htcp *ca)
{
	if (param_bandwidth_switch) {
		__u64 new = ca->max_rate, old = ca->old_max_rate;

		ca->old_max_rate = ca->max_rate;
		/* Within 20% of the previous maximum: 4 old <= 5 new <= 6 old. */
		if (!(4 * old <= 5 * new && 5 * new <= 6 * old)) {
			ca->beta = BETA_MIN;
			ca->modeswitch = 0;
			return;
		}
	}
	if (ca->modeswitch && ca->min_rtt_us > MIN_RTT_FOR_ADAPTIVE_BETA_US && ca->max_rtt_us > 0) {
		__u32 ratio = (__u32)((__u64)ca->min_rtt_us * BETA_SCALE / ca->max_rtt_us);

		ca->beta = tcplab_min(tcplab_max(ratio, BETA_MIN), BETA_MAX);
	} else {
		ca->beta = BETA_MIN;
		ca->modeswitch = 1;
	}
}

SEC("struct_ops")
void BPF_PROG(htcp_init, struct sock *sk)
{
	struct htcp *ca = TCPLAB_STATE(struct htcp, sk);
	__u64 now = tcp_sk(sk)->tcp_mstamp;

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->alpha = ONE;
	ca->beta = BETA_MIN;
	ca->last_cong_us = now;
	ca->rate_since_us = now;
}

SEC("struct_ops")
void BPF_PROG(htcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct htcp *ca = TCPLAB_STATE(struct htcp, sk);
	struct tcp_sock *tp = tcp_sk(sk);
	bool open = inet_csk(sk)->icsk_ca_state <= TCP_CA_Disorder;
	__u64 now = tp->tcp_mstamp, elapsed, window;
	__s32 rtt = sample->rtt_us;

	ca->reduction_ended = 0;
	if (sample->pkts_acked == 0 && rtt < 0)
		return; /* an ACK the simulator's algorithm would not see */
	if (rtt >= 0) {
		if (ca->min_rtt_us == 0 || (__u32)rtt < ca->min_rtt_us)
			ca->min_rtt_us = rtt;
		if (open) {
			ca->max_rtt_us = tcplab_max(ca->max_rtt_us, ca->min_rtt_us);
			if ((__u32)rtt > ca->max_rtt_us && (__u32)rtt <= ca->max_rtt_us + MAX_RTT_STEP_US)
				ca->max_rtt_us = rtt;
		}
	}
	if (!param_bandwidth_switch)
		return;
	if (!open) {
		ca->counted = 0;
		ca->rate_since_us = now;
		return;
	}
	ca->counted += sample->pkts_acked;
	elapsed = now > ca->rate_since_us ? now - ca->rate_since_us : 0;
	window = tp->snd_cwnd;
	window = window > tcplab_max(ca->alpha / ONE, 1ULL) ? window - tcplab_max(ca->alpha / ONE, 1ULL) : 0;
	if (ca->counted >= window && ca->min_rtt_us > 0 && elapsed >= ca->min_rtt_us && elapsed > 0) {
		__u32 rate = (__u32)tcplab_min((__u64)ca->counted * USEC_PER_SEC / elapsed, 0xffffffffULL);
		__u64 since_event = now > ca->last_cong_us ? now - ca->last_cong_us : 0;

		if (since_event / ca->min_rtt_us <= 3) {
			/* Within three RTTmin of the last event: start the estimate afresh. */
			ca->rate = rate;
			ca->max_rate = rate;
		} else {
			ca->rate = (__u32)((3ULL * ca->rate + rate) / 4);
			ca->max_rate = tcplab_max(ca->max_rate, ca->rate);
		}
		ca->counted = 0;
		ca->rate_since_us = now;
	}
}

SEC("struct_ops")
void BPF_PROG(htcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct htcp *ca = TCPLAB_STATE(struct htcp, sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (ca->reduction_ended)
		return;
	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (tcplab_in_slow_start(tp)) {
		tcplab_slow_start(tp, acked);
		return;
	}
	/* The credit is tested before this ACK's segments are added to it. */
	if ((__u64)tp->snd_cwnd_cnt * ca->alpha >= (__u64)tp->snd_cwnd * ONE) {
		tp->snd_cwnd = tcplab_min(tp->snd_cwnd + 1, tp->snd_cwnd_clamp);
		tp->snd_cwnd_cnt = 0;
		update_alpha(ca, tp->tcp_mstamp);
	} else {
		__u32 credit = tp->snd_cwnd_cnt + acked;

		tp->snd_cwnd_cnt = credit < acked ? 0xffffffffU : credit;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(htcp_ssthresh, struct sock *sk)
{
	struct htcp *ca = TCPLAB_STATE(struct htcp, sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 now = tp->tcp_mstamp;

	update_beta(ca);
	update_alpha(ca, now);
	/* Slowly fading memory of RTTmax, for route changes. */
	if (ca->min_rtt_us > 0 && ca->max_rtt_us > ca->min_rtt_us)
		ca->max_rtt_us = ca->min_rtt_us + (__u32)((__u64)(ca->max_rtt_us - ca->min_rtt_us) * 95 / 100);
	ca->undo_last_cong_us = ca->last_cong_us;
	ca->undo_max_rtt_us = ca->max_rtt_us;
	ca->undo_old_max_rate = ca->old_max_rate;
	ca->undo_valid = 1;
	ca->last_cong_us = now;
	return tcplab_max((__u32)((__u64)tp->snd_cwnd * ca->beta / BETA_SCALE), 2U);
}

SEC("struct_ops")
void BPF_PROG(htcp_set_state, struct sock *sk, __u8 new_state)
{
	struct htcp *ca = TCPLAB_STATE(struct htcp, sk);
	__u8 old = inet_csk(sk)->icsk_ca_state; /* set_state runs before the kernel stores it */

	if (new_state != TCP_CA_Open || old == TCP_CA_Open || old == TCP_CA_Disorder)
		return;
	if (old != TCP_CA_Loss)
		ca->reduction_ended = 1;
	if (ca->undo_valid) {
		/* The event is over: delta counts from now, and it can no longer be undone. */
		ca->last_cong_us = tcp_sk(sk)->tcp_mstamp;
		ca->undo_valid = 0;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(htcp_undo_cwnd, struct sock *sk)
{
	struct htcp *ca = TCPLAB_STATE(struct htcp, sk);

	if (ca->undo_valid) {
		ca->last_cong_us = ca->undo_last_cong_us;
		ca->max_rtt_us = ca->undo_max_rtt_us;
		ca->old_max_rate = ca->undo_old_max_rate;
		ca->undo_valid = 0;
	}
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_htcp = {
	.init = (void *)htcp_init,
	.ssthresh = (void *)htcp_ssthresh,
	.cong_avoid = (void *)htcp_cong_avoid,
	.set_state = (void *)htcp_set_state,
	.pkts_acked = (void *)htcp_pkts_acked,
	.undo_cwnd = (void *)htcp_undo_cwnd,
	.name = "tcplab_htcp",
};
