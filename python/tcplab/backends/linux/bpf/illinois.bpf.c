/* tcplab_illinois: tcplab's `illinois` (crates/tcplab-core/src/cc/illinois.rs,
 * docs/algorithms/illinois.md) as a kernel congestion control: TCP-Illinois (Liu, Basar and
 * Srikant, VALUETOOLS 2006 / Performance Evaluation 2008) with the simulator's rules.
 *
 * Loss decides when to back off, queueing delay how much: cwnd grows by alpha segments per
 * window of ACKs, a loss sets ssthresh = max(cwnd - beta cwnd, 2). Once per round (the first
 * ACK past snd_nxt as it was when the round began), from the round's mean RTT sample less the
 * base RTT (da) and the largest queueing delay seen (dm = max RTT - base RTT):
 * - alpha = alpha_max while da <= d1 = dm / 100 (after da has left that zone, only after theta
 *   consecutive low rounds), else (dm - d1) alpha_max / ((dm - d1) + (da - d1)(alpha_max -
 *   alpha_min) / alpha_min);
 * - beta = beta_min up to d2 = dm / 10, beta_max from d3 = 8 dm / 10 (or when d3 <= d2), linear
 *   between;
 * - below win_thresh segments alpha = 1, beta = 1/2 (Reno).
 * Growth: credit += acked segments; once credit alpha / 128 >= cwnd, cwnd += credit alpha / 128
 * / cwnd and the credit restarts. Slow start is Reno's (no leftover). A timeout resets alpha to
 * 1, beta to 1/2 and the low-round count, and starts a new round.
 *
 * Fixed point as the simulator: alpha in 1/128, beta in 1/64, the bounds truncated (alpha_min
 * 0.3 -> 38/128, never below 1/128). The float parameters arrive as millionths (_micro) and are
 * converted here to those units, truncating as the simulator's `(x * scale) as u64`.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - RTT samples are pkts_acked's rtt_us (microseconds, -1 when none), the simulator's
 *   rtt_sample; every sample (also in recovery) updates base, max and the round's sum, as the
 *   simulator. Delays are microseconds instead of nanoseconds (d1, d2, d3 truncate at 1 us);
 *   the 64-bit products need no clamp of the samples.
 * - Windows and the growth credit are the kernel's snd_cwnd, snd_ssthresh and snd_cwnd_cnt in
 *   segments (the simulator's SegmentWindow and its credit); the kernel itself sets cwnd during
 *   and after recovery (PRR, cwnd = ssthresh), after a timeout (in_flight + 1) and on undo, as
 *   the simulator's sender does with the same rules.
 * - cong_avoid runs only on ACKs that may raise cwnd (tcp_cong_control), the simulator's
 *   may_raise_cwnd, except the ACK whose processing returned to Open from CWR or Recovery:
 *   set_state marks it, and cong_avoid returns at once for it, as the simulator.
 * - A timeout is TCP_CA_Loss in set_state (tcp_enter_loss calls it at every timeout, with
 *   snd_nxt as it was when the timer fired). The kernel calls ssthresh once per recovery episode
 *   (not again for a timeout during a recovery); the simulator reduces at every timeout.
 * - Rounds compare sequence numbers with a wrap-safe `after` instead of byte offsets.
 * Every parameter of the simulator is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u64, alpha_min_micro, 300000);
TCPLAB_PARAM(__u64, alpha_max_micro, 10000000);
TCPLAB_PARAM(__u64, beta_min_micro, 125000);
TCPLAB_PARAM(__u64, beta_max_micro, 500000);
TCPLAB_PARAM(__u32, win_thresh, 15);
TCPLAB_PARAM(__u32, theta, 5);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

#define ALPHA_SCALE 128ULL
#define BETA_SCALE 64ULL
#define ALPHA_RENO ALPHA_SCALE
#define BETA_RENO (BETA_SCALE / 2)
#define NO_RTT 0xffffffffU

struct illinois {
	__u64 sum_rtt_us;       /* RTT samples of this round: sum and count */
	__u32 cnt_rtt;
	__u32 base_rtt_us;      /* NO_RTT before the first sample */
	__u32 max_rtt_us;
	__u32 end_seq;          /* the round ends when an ACK passes this sequence number */
	__u32 alpha;            /* 1/128 segments */
	__u32 beta;             /* 1/64 */
	__u32 rtt_low;          /* consecutive low-delay rounds since rtt_above was set */
	__u8 rtt_above;
	__u8 reduction_ended;   /* this ACK returned the sender to Open from CWR or Recovery */
};

static __always_inline bool seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

static __always_inline __u64 alpha_min(void)
{
	return tcplab_max(param_alpha_min_micro * ALPHA_SCALE / USEC_PER_SEC, 1ULL);
}

static __always_inline __u64 alpha_max(void)
{
	return param_alpha_max_micro * ALPHA_SCALE / USEC_PER_SEC;
}

static __always_inline void start_round(struct illinois *ca, __u32 snd_nxt)
{
	ca->end_seq = snd_nxt;
	ca->cnt_rtt = 0;
	ca->sum_rtt_us = 0;
}

SEC("struct_ops")
void BPF_PROG(illinois_init, struct sock *sk)
{
	struct illinois *ca = TCPLAB_STATE(struct illinois, sk);

	ca->alpha = alpha_max();
	ca->beta = BETA_RENO;
	ca->base_rtt_us = NO_RTT;
	ca->max_rtt_us = 0;
	ca->rtt_low = 0;
	ca->rtt_above = 0;
	ca->reduction_ended = 0;
	start_round(ca, tcp_sk(sk)->snd_nxt);
}

SEC("struct_ops")
void BPF_PROG(illinois_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct illinois *ca = TCPLAB_STATE(struct illinois, sk);
	__s32 rtt = sample->rtt_us;

	ca->reduction_ended = 0;
	if (rtt < 0)
		return;
	ca->base_rtt_us = tcplab_min(ca->base_rtt_us, (__u32)rtt);
	ca->max_rtt_us = tcplab_max(ca->max_rtt_us, (__u32)rtt);
	ca->cnt_rtt++;
	ca->sum_rtt_us += (__u32)rtt;
}

/* alpha (1/128) for mean queueing delay da and maximum dm; counts the low-delay rounds. */
static __always_inline __u32 next_alpha(struct illinois *ca, __u64 da, __u64 dm)
{
	__u64 d1 = dm / 100, amin = alpha_min(), amax = alpha_max();

	if (da <= d1) {
		if (!ca->rtt_above)
			return amax;
		/* One good round is not enough to return to the largest increase. */
		ca->rtt_low++;
		if (ca->rtt_low < param_theta)
			return ca->alpha;
		ca->rtt_low = 0;
		ca->rtt_above = 0;
		return amax;
	}
	ca->rtt_above = 1;
	/* da <= dm (the mean is at most the largest sample), so dm - d1 > 0. Delays are below
	 * 2^32 us and alpha below 2^14: the products fit in u64. */
	dm -= d1;
	da -= d1;
	if (amax <= amin)
		return amin;
	return dm * amax / (dm + da * (amax - amin) / amin);
}

/* beta (1/64) for mean queueing delay da and maximum dm. */
static __always_inline __u32 next_beta(__u64 da, __u64 dm)
{
	__u64 bmin = param_beta_min_micro * BETA_SCALE / USEC_PER_SEC;
	__u64 bmax = param_beta_max_micro * BETA_SCALE / USEC_PER_SEC;
	__u64 d2 = dm / 10, d3 = 8 * dm / 10;

	if (da <= d2)
		return bmin;
	if (da >= d3 || d3 <= d2 || bmax < bmin)
		return bmax;
	/* da > d2 keeps the numerator positive. */
	return (bmin * d3 + (bmax - bmin) * da - bmax * d2) / (d3 - d2);
}

static __always_inline void end_of_round(struct illinois *ca, const struct tcp_sock *tp)
{
	if (tp->snd_cwnd < param_win_thresh) {
		ca->alpha = ALPHA_RENO;
		ca->beta = BETA_RENO;
	} else if (ca->base_rtt_us != NO_RTT && ca->cnt_rtt > 0) {
		__u64 base = ca->base_rtt_us;
		__u64 mean = ca->sum_rtt_us / ca->cnt_rtt;
		__u64 dm = ca->max_rtt_us - base;
		__u64 da = mean > base ? mean - base : 0;

		ca->alpha = next_alpha(ca, da, dm);
		ca->beta = next_beta(da, dm);
	}
	start_round(ca, tp->snd_nxt);
}

SEC("struct_ops")
void BPF_PROG(illinois_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct illinois *ca = TCPLAB_STATE(struct illinois, sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 delta;
	__u32 credit;

	if (ca->reduction_ended)
		return;
	if (seq_after(tp->snd_una, ca->end_seq))
		end_of_round(ca, tp);
	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (tcplab_in_slow_start(tp)) {
		tcplab_slow_start(tp, acked);
		return;
	}
	credit = tp->snd_cwnd_cnt + acked;
	if (credit < acked)
		credit = 0xffffffffU;
	tp->snd_cwnd_cnt = credit;
	delta = (__u64)credit * ca->alpha / ALPHA_SCALE;
	if (delta >= tp->snd_cwnd) {
		__u64 grown = tp->snd_cwnd + delta / tp->snd_cwnd;

		tp->snd_cwnd = tcplab_min(grown, (__u64)tp->snd_cwnd_clamp);
		tp->snd_cwnd_cnt = 0;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(illinois_ssthresh, struct sock *sk)
{
	struct illinois *ca = TCPLAB_STATE(struct illinois, sk);
	__u64 cwnd = tcp_sk(sk)->snd_cwnd;

	return tcplab_max(cwnd - cwnd * ca->beta / BETA_SCALE, 2ULL);
}

SEC("struct_ops")
void BPF_PROG(illinois_set_state, struct sock *sk, __u8 new_state)
{
	struct illinois *ca = TCPLAB_STATE(struct illinois, sk);
	__u8 old = inet_csk(sk)->icsk_ca_state; /* set_state runs before the kernel stores it */

	if (new_state == TCP_CA_Loss) {
		/* A timeout: Reno's values until the delay says otherwise. */
		ca->alpha = ALPHA_RENO;
		ca->beta = BETA_RENO;
		ca->rtt_low = 0;
		ca->rtt_above = 0;
		start_round(ca, tcp_sk(sk)->snd_nxt);
	} else if (new_state == TCP_CA_Open && (old == TCP_CA_CWR || old == TCP_CA_Recovery)) {
		ca->reduction_ended = 1;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(illinois_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_illinois = {
	.init = (void *)illinois_init,
	.ssthresh = (void *)illinois_ssthresh,
	.cong_avoid = (void *)illinois_cong_avoid,
	.set_state = (void *)illinois_set_state,
	.pkts_acked = (void *)illinois_pkts_acked,
	.undo_cwnd = (void *)illinois_undo_cwnd,
	.name = "tcplab_illinois",
};
