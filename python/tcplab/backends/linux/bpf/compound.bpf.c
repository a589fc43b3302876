/* tcplab_compound: tcplab's `compound` (crates/tcplab-core/src/cc/compound.rs,
 * docs/algorithms/compound.md) as a kernel congestion control: Compound TCP (Tan, Song, Zhang
 * and Sridharan, "A Compound TCP approach for high-speed and long distance networks", INFOCOM
 * 2006) with the simulator's rules and its decisions where the paper leaves them open. Linux has
 * no Compound; this follows the simulator only.
 *
 * The window is win = cwnd + dwnd. cwnd is Reno's loss-based part: slow start up to its own
 * ssthresh, then one segment per win acknowledged segments (win rounded to whole segments).
 * dwnd, the delay-based part, is updated once per round (the first ACK past snd_nxt as it was
 * when the round began, with at least one RTT sample in it) from the backlog
 * diff = win (1 - baseRTT / RTT), RTT the mean of the round's samples, baseRTT the smallest
 * ever: nothing in slow start (or below 38 segments with low_window_rule); diff < gamma:
 * dwnd += max(alpha win^k - 1, 0); else dwnd = max(dwnd - zeta diff, 0). A loss: with
 * gamma_auto_tuning gamma = 3/4 of the last round's diff within [5, 30]; dwnd =
 * max(win (1 - beta) - cwnd / 2, 0); cwnd = ssthresh = max(cwnd / 2, 2). A timeout: dwnd = 0,
 * cwnd = 1, ssthresh = max(cwnd / 2, 2), gamma untouched. Neither part grows, and the round
 * is not evaluated, while the flow is not cwnd-limited (freeze_when_not_cwnd_limited). The
 * kernel's snd_cwnd is cwnd + floor(dwnd), its snd_ssthresh the Reno part's plus floor(dwnd)
 * (infinite while the Reno part's is), as the simulator reports them.
 *
 * Fixed point (no floating point in BPF): dwnd, win, diff and gamma in 1/65536 segments;
 * win^k = 2^(k log2 win) with a 16-bit fractional log2 (repeated squaring) and exp2 (a table of
 * 2^(2^-i)), relative error below 10^-4; the float parameters arrive as millionths (_micro).
 *
 * Where the kernel's inputs differ from the simulator's:
 * - The algorithm keeps its own cwnd, ssthresh, credit and dwnd and writes the kernel's
 *   snd_cwnd and snd_ssthresh from them on every ACK it may raise cwnd on, so the kernel's
 *   other changes to snd_cwnd in the open state (restart after idle, tcp_cwnd_application_
 *   limited, which the simulator does not have) last only until then. During recovery the
 *   kernel's PRR moves snd_cwnd towards snd_ssthresh and sets snd_cwnd = snd_ssthresh when it
 *   ends, which is the simulator's sender's rule; the algorithm's cwnd is already its
 *   ssthresh (set at the loss), as the simulator's.
 * - The simulator's compound does not undo a reduction (no undo_reduction), so undo_cwnd
 *   returns the current win; the kernel then raises snd_ssthresh to its prior value, which the
 *   next cong_avoid overwrites with the algorithm's.
 * - A loss is the ssthresh hook; a timeout is set_state(TCP_CA_Loss), right after the ssthresh
 *   hook when tcp_enter_loss reduces (which then replaces that hook's loss rules with the
 *   timeout's: gamma back, dwnd 0, snd_ssthresh the Reno part's). The kernel does not call
 *   ssthresh for a timeout inside a recovery; the Reno part's ssthresh is then kept (the
 *   simulator halves again) and dwnd cleared.
 * - RTT samples are pkts_acked's rtt_us (microseconds, -1 when none), the simulator's
 *   rtt_sample, also during recovery; the round's mean is their sum over their count in us.
 * - cong_avoid runs only on ACKs that may raise cwnd (tcp_cong_control), the simulator's
 *   may_raise_cwnd, except the ACK whose processing returned to Open from CWR or Recovery:
 *   set_state marks it and cong_avoid returns at once for it, as the simulator.
 * - Rounds compare sequence numbers with a wrap-safe `after`.
 * Every parameter of the simulator is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u64, alpha_micro, 125000);
TCPLAB_PARAM(__u64, beta_micro, 500000);
TCPLAB_PARAM(__u64, k_micro, 750000);
TCPLAB_PARAM(__u64, gamma_micro, 30000000);
TCPLAB_PARAM(__u64, zeta_micro, 1000000);
TCPLAB_PARAM(__u32, low_window_rule, 0);
TCPLAB_PARAM(__u32, gamma_auto_tuning, 0);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

#define SHIFT 16
#define ONE (1ULL << SHIFT)       /* one segment in dwnd's fixed point */
#define MICRO 1000000ULL
#define LOW_WINDOW (38ULL << SHIFT)
#define GAMMA_MIN (5ULL << SHIFT)
#define GAMMA_MAX (30ULL << SHIFT)
#define NO_RTT 0xffffffffU
#define MAX_SEGMENTS 0xffffffffULL

/* 2^(2^-i) x 2^30 for i = 1..16, rounded: exp2 of a fraction bit by bit. */
static const __u64 exp2_bits[16] = {
	1518500250, 1276901417, 1170923762, 1121280436, 1097253708, 1085434106, 1079572136, 1076653033,
	1075196443, 1074468888, 1074105294, 1073923544, 1073832680, 1073787251, 1073764537, 1073753181,
};

struct compound {
	__u64 dwnd;             /* delay-based window, 1/65536 segments */
	__u64 gamma;            /* 1/65536 segments */
	__u64 saved_gamma;      /* gamma before the last loss's tuning, for a timeout */
	__u64 last_diff;        /* backlog of the last complete round, 1/65536 segments */
	__u64 round_sum_us;
	__u32 round_samples;
	__u32 round_end;        /* the round ends when an ACK passes this sequence number */
	__u32 base_rtt_us;      /* NO_RTT before the first sample */
	__u32 cwnd;             /* Reno part, segments */
	__u32 ssthresh;         /* Reno part, segments */
	__u32 credit;           /* acknowledged segments towards the Reno part's next segment */
	__u8 loss_pending;      /* the ssthresh hook ran and no state change followed yet */
	__u8 reduction_ended;   /* this ACK returned the sender to Open from CWR or Recovery */
};

static __always_inline bool seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/* a * b / c without overflow for b, c below 2^32 and a * b / c below 2^64. */
static __always_inline __u64 mul_div(__u64 a, __u64 b, __u64 c)
{
	return (a / c) * b + (a % c) * b / c;
}

/* 1 if v is not 0, else 0, without a branch (the verifier walks every path of a branch inside
 * a loop separately). */
static __always_inline __u64 nonzero(__u64 v)
{
	return (v | (0 - v)) >> 63;
}

/* floor(log2(x)) for x > 0, branch-free. */
static __always_inline __u64 ilog2_flat(__u64 x)
{
	__u64 r = 0;

	for (int shift = 32; shift > 0; shift >>= 1) {
		__u64 step = nonzero(x >> shift) * shift;

		x >>= step;
		r += step;
	}
	return r;
}

/* log2(x) in 1/65536 for x >= 1 segment (x in 1/65536), branch-free inside the loop. */
static __always_inline __u64 log2_fixed(__u64 x)
{
	__u64 m = ilog2_flat(x), y, frac = 0;

	if (m < SHIFT)
		return 0;
	/* The mantissa in [1, 2) with 30 fractional bits; each squaring gives one bit. */
	y = m >= 30 ? x >> (m - 30) : x << (30 - m);
	for (int i = 1; i <= SHIFT; i++) {
		__u64 bit;

		y = (y * y) >> 30;      /* y < 2^31 before, so y * y < 2^62; now y < 2^32 */
		bit = y >> 31;          /* the square reached 2 */
		y >>= bit;
		frac |= bit << (SHIFT - i);
	}
	return ((m - SHIFT) << SHIFT) | frac;
}

/* 2^e for e >= 0 in 1/65536, the result in 1/65536 (e capped below 41 << 16). */
static __always_inline __u64 exp2_fixed(__u64 e)
{
	__u64 n = e >> SHIFT, r = 1ULL << 30;

	if (n > 40)
		n = 40;
	for (int i = 1; i <= SHIFT; i++) {
		__u64 bit = (e >> (SHIFT - i)) & 1;

		/* r < 2^31 and the factor < 2^31: the product fits. */
		r = (r * ((1ULL << 30) + bit * (exp2_bits[i - 1] - (1ULL << 30)))) >> 30;
	}
	return (r >> (30 - SHIFT)) << n;
}

/* alpha win^k - 1, at least 0, in 1/65536 segments. */
static __always_inline __u64 dwnd_growth(__u64 win)
{
	__u64 power = exp2_fixed(mul_div(log2_fixed(win), param_k_micro, MICRO));
	__u64 scaled = mul_div(power, param_alpha_micro, MICRO);

	return scaled > ONE ? scaled - ONE : 0;
}

static __always_inline __u64 win_of(const struct compound *c)
{
	return ((__u64)c->cwnd << SHIFT) + c->dwnd;
}

static __always_inline bool reno_in_slow_start(const struct compound *c)
{
	return c->cwnd < c->ssthresh;
}

/* The kernel's snd_cwnd and snd_ssthresh from the two parts. */
static __always_inline void write_window(struct tcp_sock *tp, const struct compound *c)
{
	__u64 dwnd = c->dwnd >> SHIFT;
	__u64 total = tcplab_min((__u64)c->cwnd + dwnd, (__u64)tp->snd_cwnd_clamp);

	tp->snd_cwnd = tcplab_max(total, 1ULL);
	if (c->ssthresh >= TCP_INFINITE_SSTHRESH)
		tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	else
		tp->snd_ssthresh = tcplab_min((__u64)c->ssthresh + dwnd, (__u64)TCP_INFINITE_SSTHRESH);
}

static __always_inline void start_round(struct compound *c, __u32 snd_nxt)
{
	c->round_end = snd_nxt;
	c->round_sum_us = 0;
	c->round_samples = 0;
}

SEC("struct_ops")
void BPF_PROG(compound_init, struct sock *sk)
{
	struct compound *c = TCPLAB_STATE(struct compound, sk);
	struct tcp_sock *tp = tcp_sk(sk);

	__builtin_memset(c, 0, sizeof(*c));
	c->gamma = mul_div(param_gamma_micro, ONE, MICRO);
	c->saved_gamma = c->gamma;
	c->base_rtt_us = NO_RTT;
	c->cwnd = tcplab_max(tp->snd_cwnd, 1U);
	c->ssthresh = tp->snd_ssthresh;
	start_round(c, tp->snd_nxt);
}

SEC("struct_ops")
void BPF_PROG(compound_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct compound *c = TCPLAB_STATE(struct compound, sk);
	__s32 rtt = sample->rtt_us;

	c->reduction_ended = 0;
	c->loss_pending = 0;
	if (rtt < 0)
		return;
	c->base_rtt_us = tcplab_min(c->base_rtt_us, (__u32)rtt);
	c->round_sum_us += (__u32)rtt;
	c->round_samples++;
}

/* The once-per-round dwnd update for a round whose mean RTT was rtt. */
static __always_inline void update_dwnd(struct compound *c, __u64 base, __u64 rtt)
{
	__u64 win = win_of(c);
	__u64 diff = mul_div(win, rtt > base ? rtt - base : 0, tcplab_max(rtt, 1ULL));

	c->last_diff = diff;
	if (reno_in_slow_start(c) || (param_low_window_rule && win < LOW_WINDOW))
		return;
	if (diff < c->gamma) {
		__u64 room = (MAX_SEGMENTS - c->cwnd) << SHIFT;

		c->dwnd = tcplab_min(c->dwnd + dwnd_growth(win), room);
	} else {
		__u64 cut = mul_div(diff, param_zeta_micro, MICRO);

		c->dwnd = c->dwnd > cut ? c->dwnd - cut : 0;
	}
}

/* Reno's slow start on the Reno part; returns the segments left over. */
static __always_inline __u32 reno_slow_start(struct compound *c, __u32 acked, __u32 clamp)
{
	__u64 grown = tcplab_min((__u64)c->cwnd + acked, (__u64)c->ssthresh);
	__u32 used = (__u32)grown - c->cwnd;

	c->cwnd = tcplab_min((__u32)grown, clamp);
	return acked - used;
}

/* One segment per w acknowledged segments on the Reno part, credit kept between ACKs. */
static __always_inline void reno_increase(struct compound *c, __u32 w, __u32 acked, __u32 clamp)
{
	if (w == 0)
		w = 1;
	if (c->credit >= w) {
		c->credit = 0;
		c->cwnd++;
	}
	c->credit = c->credit + acked < acked ? 0xffffffffU : c->credit + acked;
	if (c->credit >= w) {
		__u32 delta = c->credit / w;

		c->credit -= delta * w;
		c->cwnd += delta;
	}
	c->cwnd = tcplab_min(c->cwnd, clamp);
}

SEC("struct_ops")
void BPF_PROG(compound_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct compound *c = TCPLAB_STATE(struct compound, sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 clamp = tp->snd_cwnd_clamp;

	if (c->reduction_ended)
		return;
	/* The algorithm's window is the truth (see the opening comment). */
	write_window(tp, c);
	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (reno_in_slow_start(c))
		acked = reno_slow_start(c, acked, clamp);
	if (acked) {
		/* One segment per win acknowledged segments: the ACK clock runs at win. */
		__u64 win = (win_of(c) + ONE / 2) >> SHIFT;

		reno_increase(c, (__u32)tcplab_min(tcplab_max(win, 1ULL), MAX_SEGMENTS), acked, clamp);
	}
	if (seq_after(tp->snd_una, c->round_end)) {
		c->round_end = tp->snd_nxt;
		if (c->base_rtt_us != NO_RTT && c->round_samples > 0)
			update_dwnd(c, c->base_rtt_us, c->round_sum_us / c->round_samples);
		c->round_sum_us = 0;
		c->round_samples = 0;
	}
	write_window(tp, c);
}

SEC("struct_ops")
__u32 BPF_PROG(compound_ssthresh, struct sock *sk)
{
	struct compound *c = TCPLAB_STATE(struct compound, sk);
	__u64 win = win_of(c), kept, half;

	c->saved_gamma = c->gamma;
	if (param_gamma_auto_tuning) {
		__u64 tuned = c->last_diff * 3 / 4;

		c->gamma = tcplab_min(tcplab_max(tuned, GAMMA_MIN), GAMMA_MAX);
	}
	/* win falls to (1 - beta) win: the Reno part halves, dwnd takes the rest. */
	kept = mul_div(win, MICRO - tcplab_min(param_beta_micro, MICRO), MICRO);
	half = ((__u64)c->cwnd << SHIFT) / 2;
	c->dwnd = kept > half ? kept - half : 0;
	c->ssthresh = tcplab_max(c->cwnd / 2, 2U);
	c->cwnd = c->ssthresh;
	c->credit = 0;
	c->loss_pending = 1;
	/* The kernel's recovery (PRR) brings snd_cwnd down to this; cwnd is left to it. */
	return (__u32)tcplab_min((__u64)c->ssthresh + (c->dwnd >> SHIFT), (__u64)TCP_INFINITE_SSTHRESH);
}

SEC("struct_ops")
void BPF_PROG(compound_set_state, struct sock *sk, __u8 new_state)
{
	struct compound *c = TCPLAB_STATE(struct compound, sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u8 old = inet_csk(sk)->icsk_ca_state; /* set_state runs before the kernel stores it */

	if (new_state == TCP_CA_Loss) {
		/* A timeout: the loss window, no dwnd, gamma as it was. */
		if (c->loss_pending)
			c->gamma = c->saved_gamma;
		c->dwnd = 0;
		c->cwnd = 1;
		c->credit = 0;
		tp->snd_ssthresh = c->ssthresh;
	} else if (new_state == TCP_CA_Open && (old == TCP_CA_CWR || old == TCP_CA_Recovery)) {
		c->reduction_ended = 1;
	}
	c->loss_pending = 0;
}

SEC("struct_ops")
__u32 BPF_PROG(compound_undo_cwnd, struct sock *sk)
{
	struct compound *c = TCPLAB_STATE(struct compound, sk);

	/* The simulator's compound keeps its reduced window when a reduction is undone. */
	return tcplab_max(tcplab_min((__u64)c->cwnd + (c->dwnd >> SHIFT), (__u64)tcp_sk(sk)->snd_cwnd_clamp), 1ULL);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_compound = {
	.init = (void *)compound_init,
	.ssthresh = (void *)compound_ssthresh,
	.cong_avoid = (void *)compound_cong_avoid,
	.set_state = (void *)compound_set_state,
	.pkts_acked = (void *)compound_pkts_acked,
	.undo_cwnd = (void *)compound_undo_cwnd,
	.name = "tcplab_compound",
};
