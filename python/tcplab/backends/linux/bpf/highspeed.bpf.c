/* tcplab_hspeed: tcplab's `highspeed` (crates/tcplab-core/src/cc/highspeed.rs,
 * docs/algorithms/highspeed.md) as a kernel congestion control: HighSpeed TCP, RFC 3649 (Floyd
 * 2003), with the response function evaluated from its formulas, as the simulator does (not
 * from a table). The kernel name is tcplab_hspeed (names are limited to 15 characters).
 *
 * Above low_window segments, per acknowledged segment a(w) is added to a counter and cwnd grows
 * by one segment each time the counter reaches cwnd; on loss cwnd = (1 - b(w)) w, with
 *   b(w) = (high_decrease - 0.5) (ln w - ln low_window) / (ln high_window - ln low_window) + 0.5
 *   a(w) = w^2 p(w) 2 b(w) / (2 - b(w)),  p(w) = 0.078 / w^1.2,  so a(w) = 0.078 w^0.8 2b / (2 - b)
 * (RFC 3649 sections 5 and 6), a(w) at least 1. At or below low_window: a = 1, b = 0.5 (Reno).
 * Slow start is Reno's; the segments left over when it reaches ssthresh go to the counter. The
 * counter is cleared at every reduction. ssthresh is at least 2.
 *
 * Fixed point (BPF has no floating point): logarithms base 2 with 24 fractional bits (the base
 * cancels in b's ratio), b's slope d = 0.5 - b with 30 fractional bits, so that
 * ssthresh = floor(w (0.5 + d)) equals the simulator's f64 result at every window up to 44,000
 * segments (checked against the f64 formula for w = 1 .. 200,000: 19 windows above 44,000 differ
 * by one segment); 2^x with 30-bit intermediate factors, a(w) and the counter with 16 fractional
 * bits (a(w) within 0.03% of the f64 value from 39 to 200,000 segments). Products stay below
 * 2^62 at any u32 window. high_decrease arrives in millionths (high_decrease_micro = 100000).
 * Where b(w) would be negative (far above high_window) the simulator's formulas still hold:
 * ssthresh = w (0.5 + d) grows past w and a(w) is 1.
 *
 * Where the kernel differs from the simulator's inputs: both count whole segments; cong_avoid's
 * `acked` is the segments newly delivered by this ACK, cumulatively or by SACK, as the
 * simulator's acked_segments, and the kernel calls it only when the ACK may raise cwnd (the
 * simulator's may_raise_cwnd). The recovery itself (SACK, PRR, RACK) is the kernel's; at its end
 * the kernel sets cwnd = ssthresh (tcp_end_cwnd_reduction), as the simulator's on_recovery_exit.
 * cwnd stops at tcp_sock.snd_cwnd_clamp (the simulator: u32::MAX). Every simulator parameter is
 * exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, low_window, 38);
TCPLAB_PARAM(__u32, high_window, 83000);
TCPLAB_PARAM(__u32, high_decrease_micro, 100000);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

#define HS_ONE_Q16 (1ULL << 16)
#define HS_LOG_BITS 24

struct hspeed {
	__u64 credit_q16; /* a(w) per acknowledged segment, summed; each cwnd of it is +1 segment */
};

/* log2(w) with HS_LOG_BITS fractional bits, w >= 1: the integer part, then each fractional bit
 * by squaring the mantissa (kept with 30 fractional bits, below 2^31, so squares fit). */
static __always_inline __u64 hs_log2(__u64 w)
{
	__u32 n = tcplab_ilog2(w);
	__u64 y = (w << 30) >> n;
	__u64 frac = 0;

	for (int k = 0; k < HS_LOG_BITS; k++) {
		y = (y * y) >> 30;
		frac <<= 1;
		if (y >= (2ULL << 30)) {
			y >>= 1;
			frac |= 1;
		}
	}
	return ((__u64)n << HS_LOG_BITS) | frac;
}

/* d = 0.5 - b(w) with 30 fractional bits, for w above low_window. */
static __always_inline __u64 hs_slope_q30(__u64 w)
{
	__u64 low = param_low_window ? param_low_window : 1;
	__u64 high = param_high_window > low ? param_high_window : low + 1;
	__u64 lw = hs_log2(w), ll = hs_log2(low), lh = hs_log2(high);
	__u64 half = 1ULL << 29;
	__u64 hd = (__u64)param_high_decrease_micro * (1ULL << 30) / USEC_PER_SEC;

	if (hd > half)
		hd = half;
	return (half - hd) * (lw - ll) / (lh - ll);
}

/* a(w) with 16 fractional bits. */
static __always_inline __u64 hs_increase_q16(__u64 w)
{
	__u64 d, b, w08, a;

	if (w <= param_low_window)
		return HS_ONE_Q16;
	d = hs_slope_q30(w);
	if (d >= (1ULL << 29))
		return HS_ONE_Q16; /* b <= 0: a(w) <= 0, raised to 1 */
	b = ((1ULL << 29) - d) >> 14;
	/* w^0.8 = 2^(0.8 log2 w) */
	w08 = tcplab_exp2_q16((hs_log2(w) * 4 / 5) >> (HS_LOG_BITS - 16));
	a = (w08 * 78 / 1000) * 2 * b / (2 * HS_ONE_Q16 - b);
	return tcplab_max(a, HS_ONE_Q16);
}

SEC("struct_ops")
void BPF_PROG(hspeed_init, struct sock *sk)
{
	TCPLAB_STATE(struct hspeed, sk)->credit_q16 = 0;
}

SEC("struct_ops")
void BPF_PROG(hspeed_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hspeed *ca = TCPLAB_STATE(struct hspeed, sk);
	__u32 cwnd;

	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	cwnd = tp->snd_cwnd;
	ca->credit_q16 += hs_increase_q16(cwnd) * acked;
	/* At most 64 segments per ACK here; anything beyond stays in the counter for the next. */
	for (int i = 0; i < 64; i++) {
		if (cwnd == 0 || ca->credit_q16 < ((__u64)cwnd << 16) || cwnd >= tp->snd_cwnd_clamp)
			break;
		ca->credit_q16 -= (__u64)cwnd << 16;
		cwnd++;
	}
	tp->snd_cwnd = cwnd;
}

SEC("struct_ops")
__u32 BPF_PROG(hspeed_ssthresh, struct sock *sk)
{
	__u64 w = tcp_sk(sk)->snd_cwnd;
	__u64 ssthresh;

	TCPLAB_STATE(struct hspeed, sk)->credit_q16 = 0;
	if (w <= param_low_window)
		ssthresh = w / 2;
	else
		ssthresh = (w * ((1ULL << 29) + hs_slope_q30(w))) >> 30;
	if (ssthresh > 0x7fffffffULL)
		ssthresh = 0x7fffffffULL;
	return tcplab_max((__u32)ssthresh, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(hspeed_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_hspeed = {
	.init = (void *)hspeed_init,
	.cong_avoid = (void *)hspeed_cong_avoid,
	.ssthresh = (void *)hspeed_ssthresh,
	.undo_cwnd = (void *)hspeed_undo_cwnd,
	.name = "tcplab_hspeed",
};
