/* tcplab_bic: tcplab's `bic` (crates/tcplab-core/src/cc/bic.rs, docs/algorithms/bic.md) as a
 * kernel congestion control: BIC TCP (Xu, Harfoush and Rhee, "Binary increase congestion control
 * for fast, long distance networks", INFOCOM 2004) with the rules the simulator takes from Linux.
 *
 * - Below the window of the last loss (W_max), binary search: one segment per cnt acknowledged
 *   segments with cnt = cwnd / dist, dist = (W_max - cwnd) / b; at most max_increment segments
 *   per RTT (cnt = cwnd / max_increment when dist > max_increment); within one step of W_max,
 *   and up to b segments above it, a crawl (cnt = cwnd * smooth_part / b).
 * - Above that, max probing: cnt = cwnd (b - 1) / (cwnd - W_max), then cwnd / max_increment from
 *   W_max + max_increment (b - 1) on.
 * - cnt is at most 20 before the first loss; above low_window cnt is divided by cnt_divisor
 *   (rounded down, at least 1). At or below low_window: Reno (cnt = cwnd).
 * - Slow start is Reno's; segments left over when cwnd reaches ssthresh go on to the increase.
 * - On loss or ECN: W_max = cwnd, or cwnd (1 + beta) / 2 with fast convergence when cwnd is below
 *   the previous W_max; ssthresh = cwnd / 2 at or below low_window, else cwnd x beta (at least 2).
 *   A timeout forgets W_max after ssthresh was taken (the kernel calls ssthresh, then set_state
 *   with TCP_CA_Loss: tcp_input.c tcp_enter_loss, the order the simulator follows).
 *
 * Fixed point: beta and cnt_divisor arrive as millionths (beta_micro = 800000,
 * cnt_divisor_micro = 1000000); cwnd x 2,000,000 stays far below 2^64 at any u32 window, so
 * cwnd x beta = cwnd * beta_micro / 10^6 is the simulator's floor(cwnd x beta) exactly for
 * betas with at most six decimals (0.8, and 0.7998046875 = 819/1024 rounds to 0.799805, which
 * gives the same floor at every window below 4101 segments).
 *
 * Where the kernel differs from the simulator's inputs: both count whole segments, and the
 * kernel's `acked` (cong_avoid) is the segments newly delivered by this ACK, cumulatively or by
 * SACK, as the simulator's acked_segments. cong_avoid runs only when the ACK may raise cwnd (the
 * simulator's may_raise_cwnd). The kernel, not the algorithm, runs the recovery (SACK, PRR, RACK)
 * and sets cwnd = ssthresh at its end (tcp_end_cwnd_reduction), as the simulator's
 * on_recovery_exit. Undo (a spurious reduction) restores max(cwnd, prior cwnd) and keeps W_max,
 * as the simulator's. Every simulator parameter is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, beta_micro, 800000);
TCPLAB_PARAM(__u32, b, 4);
TCPLAB_PARAM(__u32, max_increment, 16);
TCPLAB_PARAM(__u32, low_window, 14);
TCPLAB_PARAM(__u32, smooth_part, 20);
TCPLAB_PARAM(__u32, fast_convergence, 1);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);
TCPLAB_PARAM(__u32, cnt_divisor_micro, 1000000);

/* cnt before the first loss (W_max = 0) is at most this: 5% growth per RTT. */
#define BIC_CNT_BEFORE_LOSS 20

struct bic {
	__u32 w_max; /* segments; 0 before the first loss and after a timeout */
};

/* Acknowledged segments per +1 segment of cwnd (the simulator's Bic::cnt). */
static __always_inline __u32 bic_cnt(__u64 cwnd, __u64 w_max)
{
	__u64 b = param_b < 2 ? 2 : param_b;
	__u64 smax = param_max_increment ? param_max_increment : 1;
	__u64 smooth = param_smooth_part;
	__u64 divisor = param_cnt_divisor_micro ? param_cnt_divisor_micro : 1;
	__u64 cnt;

	if (cwnd <= param_low_window)
		return tcplab_max((__u32)cwnd, 1U);
	if (cwnd < w_max) {
		__u64 dist = (w_max - cwnd) / b;

		if (dist > smax)
			cnt = cwnd / smax;
		else if (dist <= 1)
			cnt = cwnd * smooth / b;
		else
			cnt = cwnd / dist;
	} else if (cwnd < w_max + b) {
		cnt = cwnd * smooth / b;
	} else if (cwnd < w_max + smax * (b - 1)) {
		cnt = cwnd * (b - 1) / (cwnd - w_max);
	} else {
		cnt = cwnd / smax;
	}
	if (w_max == 0 && cnt > BIC_CNT_BEFORE_LOSS)
		cnt = BIC_CNT_BEFORE_LOSS;
	/* floor(cnt / cnt_divisor): cnt is below 2^32 x 1000, times 10^6 below 2^62. */
	cnt = cnt * USEC_PER_SEC / divisor;
	if (cnt > 0xffffffffULL)
		cnt = 0xffffffffULL;
	return tcplab_max((__u32)cnt, 1U);
}

SEC("struct_ops")
void BPF_PROG(bic_init, struct sock *sk)
{
	TCPLAB_STATE(struct bic, sk)->w_max = 0;
}

SEC("struct_ops")
__u32 BPF_PROG(bic_ssthresh, struct sock *sk)
{
	struct bic *ca = TCPLAB_STATE(struct bic, sk);
	__u64 cwnd = tcp_sk(sk)->snd_cwnd;
	__u64 ssthresh;

	if (cwnd < ca->w_max && param_fast_convergence)
		ca->w_max = cwnd * (USEC_PER_SEC + param_beta_micro) / (2 * USEC_PER_SEC);
	else
		ca->w_max = cwnd;
	if (cwnd <= param_low_window)
		ssthresh = cwnd / 2;
	else
		ssthresh = cwnd * param_beta_micro / USEC_PER_SEC;
	return tcplab_max((__u32)ssthresh, 2U);
}

SEC("struct_ops")
void BPF_PROG(bic_set_state, struct sock *sk, __u8 new_state)
{
	/* After a timeout growth starts over, without the old W_max to search towards. */
	if (new_state == TCP_CA_Loss)
		TCPLAB_STATE(struct bic, sk)->w_max = 0;
}

SEC("struct_ops")
void BPF_PROG(bic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bic *ca = TCPLAB_STATE(struct bic, sk);

	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	tcplab_additive_increase(tp, bic_cnt(tp->snd_cwnd, ca->w_max), acked);
}

SEC("struct_ops")
__u32 BPF_PROG(bic_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_bic = {
	.init = (void *)bic_init,
	.ssthresh = (void *)bic_ssthresh,
	.set_state = (void *)bic_set_state,
	.cong_avoid = (void *)bic_cong_avoid,
	.undo_cwnd = (void *)bic_undo_cwnd,
	.name = "tcplab_bic",
};
