/* tcplab_lp: tcplab's `lp` (crates/tcplab-core/src/cc/lp.rs, docs/algorithms/lp.md) as a kernel
 * congestion control: TCP-LP (Kuzmanovic and Knightly, IEEE/ACM ToN 14(4), 2006) with the rules
 * the simulator's file takes from Linux's tcp_lp.c.
 *
 * - The smoothed one-way delay sowd (EWMA, gain 1/8) against d_min and d_max (d_max the second
 *   largest sample): early congestion when sowd > d_min + threshold_percent% (d_max - d_min).
 * - The first indication halves cwnd (at least one segment) and starts the inference time,
 *   inference_rtts x the RTT sample; during it cwnd does not grow, and a second indication cuts
 *   cwnd to one segment. reset_range (default): after each indication d_min = sowd and d_max =
 *   2 sowd; off: the connection's own range, and no indication from ACKs for data sent before the
 *   last cut. Events "lp_halve" and "lp_cut_to_one" with the new cwnd, as the simulator's.
 * - Otherwise Reno: slow start, one segment per window, ssthresh = max(cwnd / 2, 2) on a loss.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - The one-way delay. The simulator's AckEvent::one_way_delay is the echoed segment's arrival at
 *   the receiver minus its send time on one clock, in nanoseconds, without the receiver's ACK
 *   delay. The kernel has the ACK's TCP timestamps: tp->rx_opt.rcv_tsval (the receiver's clock when
 *   it sent this ACK) minus tp->rx_opt.rcv_tsecr (the echo of our clock when the echoed segment
 *   left), as Linux's tcp_lp.c reads them (tcp_lp_owd_calculator, which also estimates the remote
 *   clock's rate: here both ends are Linux with the same tick, 1 ms, or 1 us when
 *   tp->tcp_usec_ts says so). That difference includes the receiver's ACK delay, is quantised to
 *   the tick, and carries an unknown constant (each end adds its random tsoffset). Because the
 *   range reset (d_max = 2 sowd) needs a delay with a true zero, this file calibrates: owd =
 *   (difference - smallest difference seen) + half the connection's minimum RTT (tp->rtt_min),
 *   i.e. it assumes the smallest forward delay is half the smallest RTT (exact on a symmetric
 *   path with an uncongested return). Times are microseconds (the simulator: nanoseconds).
 * - The receiver's ACK delay: a one-segment ACK may have waited up to the delayed-ACK timeout
 *   (40 ms in Linux) before the receiver stamped its TSval, and that wait counts as one-way
 *   delay. With TCP-LP's small windows most ACKs are such, and the samples jump between about
 *   the path's delay and 40 ms more: with the range reset (threshold 15% above the last sowd)
 *   nearly every jump is an indication (seen: cwnd held at one segment for 20 s, 0.8 Mbit/s
 *   for two flows against the simulator's 5.7). So only ACKs that acknowledge two or more
 *   segments at once give a delay sample here (the receiver sends those without waiting, RFC
 *   5681's every-second-segment rule); the RTT sample (inference time) comes from every ACK, as
 *   in the simulator, whose one-way delay never includes the ACK delay.
 * - Samples and the inference test are taken in pkts_acked, on ACKs with an RTT sample
 *   (ack_sample.rtt_us > 0), as the simulator samples only ACKs with an rtt_sample; growth is in
 *   cong_avoid, which the kernel calls after pkts_acked and only when it may raise cwnd. The time
 *   is tp->tcp_mstamp.
 * - Windows are segments, as in the simulator; recovery is the kernel's (SACK, PRR, RACK).
 *
 * All simulator parameters are exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, threshold_percent, 15);
TCPLAB_PARAM(__u32, inference_rtts, 3);
TCPLAB_PARAM(__u32, reset_range, 1);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

struct lp {
	__u64 sowd8;	       /* smoothed one-way delay x 8, us; 0 before the first sample */
	__u64 last_cut;	       /* tcp_mstamp of the last cut, 0: none */
	__u64 inference;       /* us */
	__u32 owd_min;	       /* us */
	__u32 owd_max;
	__u32 owd_max_reserve;
	__u32 cut_snd_nxt;
	__u32 raw_min;	       /* smallest TSval - TSecr seen, ticks relative to the first */
	__u32 raw_anchor;
	__u32 has_anchor;
};

SEC("struct_ops")
void BPF_PROG(lp_init, struct sock *sk)
{
	struct lp *ca = TCPLAB_STATE(struct lp, sk);

	ca->sowd8 = 0;
	ca->last_cut = 0;
	ca->inference = 0;
	ca->owd_min = 0xffffffffU;
	ca->owd_max = 0;
	ca->owd_max_reserve = 0;
	ca->cut_snd_nxt = 0;
	ca->raw_min = 0xffffffffU;
	ca->raw_anchor = 0;
	ca->has_anchor = 0;
}

/* The calibrated one-way delay of this ACK in us, 0 without a timestamp. */
static __always_inline __u32 lp_owd(struct sock *sk, struct lp *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 raw, rel, tick_us = tp->tcp_usec_ts ? 1 : USEC_PER_MSEC;
	__u32 min_rtt = tp->rtt_min.s[0].v;

	if (!tp->rx_opt.saw_tstamp || !tp->rx_opt.rcv_tsecr)
		return 0;
	raw = tp->rx_opt.rcv_tsval - tp->rx_opt.rcv_tsecr;
	if (!ca->has_anchor) {
		ca->raw_anchor = raw;
		ca->has_anchor = 1;
	}
	/* Relative to the first sample, offset by 2^30 ticks: clear of the u32 wrap either way. */
	rel = raw - ca->raw_anchor + (1U << 30);
	if (rel < ca->raw_min)
		ca->raw_min = rel;
	if (min_rtt == ~0U)
		min_rtt = 0;
	return (rel - ca->raw_min) * tick_us + min_rtt / 2;
}

/* tcp_lp.c tcp_lp_rtt_sample's rules: the minimum, the second-largest maximum, the EWMA. */
static __always_inline void lp_sample(struct lp *ca, __u32 owd)
{
	if (owd < ca->owd_min)
		ca->owd_min = owd;
	if (owd > ca->owd_max) {
		if (owd > ca->owd_max_reserve) {
			ca->owd_max = ca->owd_max_reserve ? ca->owd_max_reserve : owd;
			ca->owd_max_reserve = owd;
		} else {
			ca->owd_max = owd;
		}
	}
	if (!ca->sowd8)
		ca->sowd8 = (__u64)owd << 3;
	else
		ca->sowd8 = ca->sowd8 - (ca->sowd8 >> 3) + owd;
}

static __always_inline bool lp_early_congestion(struct lp *ca)
{
	__u64 range, threshold;

	if (!ca->sowd8)
		return false;
	range = ca->owd_max > ca->owd_min ? ca->owd_max - ca->owd_min : 0;
	threshold = ca->owd_min + (__u64)param_threshold_percent * range / 100;
	return (ca->sowd8 >> 3) > threshold;
}

static __always_inline bool lp_within_inference(struct sock *sk, struct lp *ca)
{
	return ca->last_cut && tcp_sk(sk)->tcp_mstamp - ca->last_cut < ca->inference;
}

SEC("struct_ops")
void BPF_PROG(lp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct lp *ca = TCPLAB_STATE(struct lp, sk);
	__s32 rtt = sample->rtt_us;
	bool within, shows_last_cut;

	if (rtt > 0) {
		/* Only ACKs for two or more segments: the receiver sends those at once, while a
		 * one-segment ACK may have waited for the delayed-ACK timer (40 ms here), which
		 * TSval - TSecr counts as one-way delay. */
		if (sample->pkts_acked >= 2) {
			__u32 owd = lp_owd(sk, ca);

			if (owd > 0)
				lp_sample(ca, owd);
		}
		ca->inference = (__u64)(__u32)rtt * param_inference_rtts;
	}
	within = lp_within_inference(sk, ca);
	shows_last_cut = param_reset_range || !ca->last_cut || (__s32)(tp->snd_una - ca->cut_snd_nxt) > 0;
	if (!shows_last_cut || !lp_early_congestion(ca))
		return;
	if (param_reset_range) {
		__u32 sowd = (__u32)(ca->sowd8 >> 3);

		ca->owd_min = sowd;
		ca->owd_max = sowd << 1;
		ca->owd_max_reserve = sowd << 1;
	}
	if (within) {
		tp->snd_cwnd = 1;
		TCPLAB_EVENT(sk, "lp_cut_to_one", 1);
	} else {
		tp->snd_cwnd = tcplab_max(tp->snd_cwnd >> 1, 1U);
		TCPLAB_EVENT(sk, "lp_halve", tp->snd_cwnd);
	}
	tp->snd_cwnd_cnt = 0;
	ca->last_cut = tp->tcp_mstamp ? tp->tcp_mstamp : 1;
	ca->cut_snd_nxt = tp->snd_nxt;
}

SEC("struct_ops")
void BPF_PROG(lp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct lp *ca = TCPLAB_STATE(struct lp, sk);

	if (lp_within_inference(sk, ca))
		return;
	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	tcplab_additive_increase(tp, tp->snd_cwnd, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(lp_ssthresh, struct sock *sk)
{
	return tcplab_max(tcp_sk(sk)->snd_cwnd >> 1, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(lp_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_lp = {
	.init = (void *)lp_init,
	.ssthresh = (void *)lp_ssthresh,
	.cong_avoid = (void *)lp_cong_avoid,
	.pkts_acked = (void *)lp_pkts_acked,
	.undo_cwnd = (void *)lp_undo_cwnd,
	.name = "tcplab_lp",
};
