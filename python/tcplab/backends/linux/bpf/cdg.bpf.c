/* tcplab_cdg: tcplab's `cdg` (crates/tcplab-core/src/cc/cdg.rs, docs/algorithms/cdg.md) as a
 * kernel congestion control: CAIA Delay-Gradient (Hayes and Armitage, IFIP Networking 2011) with
 * the rules the simulator's file takes from Linux's tcp_cdg.c.
 *
 * - Once per round (the cumulative ACK passes the snd_nxt of the round's start) the round's
 *   smallest and largest RTT are compared with the previous round's; the changes are summed over
 *   the last `window` rounds (extrapolated while the window fills). With g = the min sum if
 *   positive, else the max sum, CDG backs off with probability 1 - exp(-g_us backoff_factor / 1e6)
 *   (bpf_get_prandom_u32 against that probability in 1/2^32): cwnd = ssthresh =
 *   max(cwnd backoff_beta / 1024, 2), growth held until the round sent before the backoff is
 *   acknowledged, then a new gradient round starts. Event "cdg_backoff".
 * - use_ineff: after that many backoffs without a gradient sum of -32 us or less, stop backing
 *   off. use_shadow: a loss halves the larger of cwnd and a shadow window that remembers the
 *   window delay backoffs took away. use_tolerance: losses while the gradients say the queue is
 *   not full keep the window.
 * - Slow start ends on HyStart's ACK train (ACKs closer than 3 ms spanning half the minimum RTT,
 *   at least 125 us) or delay test (the round's minimum 1/8 above the smallest, after 8 ACKs);
 *   events "cdg_hystart_ack_train" and "cdg_hystart_delay". Growth is otherwise Reno's.
 * - The delayed-ACK filter: a one-segment ACK after multi-segment ones may only lower the minimum.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - RTTs and times are microseconds (ack_sample.rtt_us, tp->tcp_mstamp); the simulator's are
 *   nanoseconds, so its 32,000 ns and 64,000 ns thresholds are 32 and 64 us here, as Linux's.
 * - The delayed-ACK filter applies on ACKs that acknowledged segments cumulatively
 *   (ack_sample.pkts_acked > 0) in the Open or Disorder state, the simulator's "snd_una advanced
 *   outside recovery"; the segment count is ack_sample.pkts_acked.
 * - A backoff sets snd_ssthresh and snd_cwnd at once and holds growth for a round, as the
 *   simulator; the kernel stays in its Open state (a BPF congestion control cannot call
 *   tcp_enter_cwr, so there is no PRR round as in Linux's tcp_cdg.c). The end of a loss
 *   recovery is the kernel's CA_EVENT_COMPLETE_CWR; recovery itself is the kernel's (SACK, PRR,
 *   RACK).
 * - exp() is e^-1 raised to the whole part and a Taylor series for the fraction (error below 1e-6);
 *   the random numbers are the kernel's, not the connection's seeded stream.
 *
 * All simulator parameters are exposed; the gradient window (up to 256 rounds) lives in a
 * socket-storage map. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, window, 8);
TCPLAB_PARAM(__u32, backoff_beta, 724);
TCPLAB_PARAM(__u32, backoff_factor, 42);
TCPLAB_PARAM(__u32, hystart_detect, 3);
TCPLAB_PARAM(__u32, use_ineff, 5);
TCPLAB_PARAM(__u32, use_shadow, 1);
TCPLAB_PARAM(__u32, use_tolerance, 0);

#define CDG_MAX_WINDOW 256
#define EFFECTUAL_DROP_US 32
#define TOLERANCE_UNIT_US 64
#define ACK_TRAIN_GAP_US 3000
#define HYSTART_FLOOR_US 125
#define HYSTART_DELAY_SAMPLES 8
#define MAX_DELACK 5

enum cdg_queue { Q_UNKNOWN, Q_NONFULL, Q_FULL, Q_BACKOFF };

struct cdg_minmax {
	__s32 min;
	__s32 max;
};

struct cdg_gradients {
	struct cdg_minmax at[CDG_MAX_WINDOW];
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cdg_gradients);
} cdg_gradients SEC(".maps");

struct cdg {
	__s64 gsum_min;
	__s64 gsum_max;
	__u64 last_ack;	   /* tcp_mstamp of the train's last ACK, 0: none */
	__u64 round_start; /* tcp_mstamp of the train's first ACK */
	struct cdg_minmax rtt;
	struct cdg_minmax rtt_prev;
	__u32 tail;
	__u32 rtt_seq;
	__u32 shadow_wnd;
	__u32 backoff_cnt;
	__u32 sample_cnt;
	__u32 delay_min; /* us */
	__u32 cwr_until;
	__u8 cwr_active;
	__u8 complete_cwr;
	__u8 gfilled;
	__u8 state;
	__u8 delack;
	__u8 storage_ok;
};

/* e^-1 in 1/2^32. */
#define EXP_NEG_ONE 0x5e2d58d9ULL

static __always_inline __u32 cdg_window(void)
{
	return param_window < 1 ? 1 : (param_window > CDG_MAX_WINDOW ? CDG_MAX_WINDOW : param_window);
}

/* e^-x for x in 1/65536 (x >= 0), in 1/2^32. */
static __always_inline __u64 cdg_exp_neg(__u64 x16)
{
	__u64 k = x16 >> 16, r = x16 & 0xffff, term = 1ULL << 32, pos = 1ULL << 32, neg = 0;

	if (k >= 32)
		return 0;
	/* e^-r = sum (-r)^n / n!, r < 1: ten terms leave an error below 1/10! ~ 3e-7. */
	for (__u32 n = 1; n <= 10; n++) {
		term = ((term * r) >> 16) / n;
		if (n & 1)
			neg += term;
		else
			pos += term;
	}
	pos -= neg;
	/* times e^-k, one factor e^-1 at a time (each product rounds down by under 2^-32). */
	for (__u32 i = 0; i < 32; i++) {
		if (i >= k)
			break;
		pos = (pos * EXP_NEG_ONE) >> 32;
	}
	return pos;
}

SEC("struct_ops")
void BPF_PROG(cdg_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = TCPLAB_STATE(struct cdg, sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->shadow_wnd = tp->snd_cwnd;
	ca->rtt_seq = tp->snd_una;
	ca->state = Q_UNKNOWN;
	/* The storage starts zeroed: gradients of 0 in every slot. */
	if (bpf_sk_storage_get(&cdg_gradients, sk, 0, BPF_SK_STORAGE_GET_F_CREATE))
		ca->storage_ok = 1;
}

static __always_inline bool minmax_empty(const struct cdg_minmax *m)
{
	return m->min == 0 && m->max == 0;
}

/* Rounds a gradient sum to whole TOLERANCE_UNITs, half away from zero, without signed division. */
static __always_inline __s64 tolerance_round(__s64 g)
{
	__u64 mag;

	if (g >= 0)
		return (__s64)(((__u64)g + TOLERANCE_UNIT_US / 2) / TOLERANCE_UNIT_US);
	mag = ((__u64)(-g) + TOLERANCE_UNIT_US / 2) / TOLERANCE_UNIT_US;
	return -(__s64)mag;
}

/* tcp_cdg_grad's rules: the gradient sum over the window, extrapolated while it fills. */
static __always_inline __s64 cdg_gradient(struct sock *sk, struct cdg *ca)
{
	struct cdg_gradients *g = bpf_sk_storage_get(&cdg_gradients, sk, 0, 0);
	__u32 len = cdg_window(), tail = ca->tail;
	__s64 gmin = (__s64)ca->rtt.min - ca->rtt_prev.min;
	__s64 gmax = (__s64)ca->rtt.max - ca->rtt_prev.max;
	__s64 grad;

	if (!g || tail >= CDG_MAX_WINDOW)
		return 0;
	ca->gsum_min += gmin - g->at[tail].min;
	ca->gsum_max += gmax - g->at[tail].max;
	g->at[tail].min = (__s32)gmin;
	g->at[tail].max = (__s32)gmax;
	tail = tail + 1 >= len ? 0 : tail + 1;
	ca->tail = tail;
	gmin = ca->gsum_min;
	gmax = ca->gsum_max;
	grad = gmin > 0 ? gmin : gmax;
	if (!ca->gfilled) {
		if (tail == 0) {
			ca->gfilled = 1;
		} else if (grad >= 0) {
			grad = (__s64)((__u64)grad * len / tail);
		} else {
			grad = -(__s64)((__u64)(-grad) * len / tail);
		}
	}
	if (gmin <= -EFFECTUAL_DROP_US || gmax <= -EFFECTUAL_DROP_US)
		ca->backoff_cnt = 0;
	if (param_use_tolerance) {
		__s64 rmin = tolerance_round(gmin), rmax = tolerance_round(gmax);

		if (rmin > 0 && rmax <= 0)
			ca->state = Q_FULL;
		else if ((rmin > 0 && rmax > 0) || rmax < 0)
			ca->state = Q_NONFULL;
	}
	return grad;
}

/* tcp_cdg_ssthresh's rules. */
static __always_inline __u32 cdg_loss_ssthresh(struct tcp_sock *tp, struct cdg *ca)
{
	__u32 cwnd = tp->snd_cwnd;

	if (ca->state == Q_BACKOFF) {
		__u32 beta = param_backoff_beta > 1024 ? 1024 : param_backoff_beta;

		return tcplab_max((__u32)(((__u64)cwnd * beta) >> 10), 2U);
	}
	if (ca->state == Q_NONFULL && param_use_tolerance)
		return tcplab_max(cwnd, 2U);
	ca->shadow_wnd = tcplab_min(ca->shadow_wnd >> 1, cwnd);
	if (param_use_shadow)
		return tcplab_max(tcplab_max(ca->shadow_wnd, cwnd >> 1), 2U);
	return tcplab_max(cwnd >> 1, 2U);
}

/* tcp_cdg_backoff's rules: draw; unless ineffectual, reduce at once and hold growth a round. */
static __always_inline bool cdg_backoff(struct sock *sk, struct cdg *ca, __s64 grad)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 x16, p32;
	__u32 ssthresh;

	/* x = grad_us * factor / 1e6, in 1/65536; past 32 the probability is 1 to 2^-46. */
	if ((__u64)grad > (1ULL << 40) / (param_backoff_factor ? param_backoff_factor : 1))
		x16 = 32ULL << 16;
	else
		x16 = ((__u64)grad * param_backoff_factor << 16) / 1000000;
	p32 = (1ULL << 32) - cdg_exp_neg(x16);
	if ((__u64)bpf_get_prandom_u32() >= p32)
		return false;
	if (param_use_ineff) {
		ca->backoff_cnt++;
		if (ca->backoff_cnt > param_use_ineff)
			return false;
	}
	ca->shadow_wnd = tcplab_max(ca->shadow_wnd, tp->snd_cwnd);
	ca->state = Q_BACKOFF;
	ssthresh = cdg_loss_ssthresh(tp, ca);
	tp->snd_ssthresh = ssthresh;
	tp->snd_cwnd = ssthresh;
	tp->snd_cwnd_cnt = 0;
	ca->cwr_until = tp->snd_nxt;
	ca->cwr_active = 1;
	TCPLAB_EVENT(sk, "cdg_backoff", ssthresh);
	return true;
}

/* tcp_cdg_acked's rules: the round's min and max RTT with the delayed-ACK filter. */
static __always_inline void cdg_rtt_sample(struct cdg *ca, __s32 rtt, __u32 acked, bool filter)
{
	if (filter) {
		if (acked == 1 && ca->delack) {
			/* As the simulator: a plain minimum (an empty round's 0 stays 0). */
			ca->rtt.min = tcplab_min(ca->rtt.min, rtt);
			ca->delack--;
			return;
		} else if (acked > 1 && ca->delack < MAX_DELACK) {
			ca->delack++;
		}
	}
	ca->rtt.min = ca->rtt.min == 0 ? rtt : tcplab_min(ca->rtt.min, rtt);
	ca->rtt.max = tcplab_max(ca->rtt.max, rtt);
}

SEC("struct_ops")
void BPF_PROG(cdg_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = TCPLAB_STATE(struct cdg, sk);
	__u8 ca_state = inet_csk(sk)->icsk_ca_state;

	if (sample->rtt_us > 0) {
		bool filter = sample->pkts_acked > 0 && ca_state < TCP_CA_CWR;

		cdg_rtt_sample(ca, sample->rtt_us, sample->pkts_acked, filter);
	}
	if (ca->cwr_active) {
		if ((__s32)(tp->snd_una - ca->cwr_until) < 0)
			return;
		ca->cwr_active = 0;
		ca->complete_cwr = 1;
	}
	if (ca->complete_cwr) {
		/* The reduction round is over: the next gradient compares with its RTTs. */
		ca->complete_cwr = 0;
		ca->state = Q_UNKNOWN;
		ca->rtt_seq = tp->snd_nxt;
		ca->rtt_prev = ca->rtt;
		ca->rtt.min = 0;
		ca->rtt.max = 0;
	}
}

static __always_inline void cdg_exit_slow_start(struct sock *sk, bool train)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_ssthresh = tcplab_max(tp->snd_cwnd, 2U);
	if (train)
		TCPLAB_EVENT(sk, "cdg_hystart_ack_train", tp->snd_cwnd);
	else
		TCPLAB_EVENT(sk, "cdg_hystart_delay", tp->snd_cwnd);
}

/* tcp_cdg_hystart_update's rules. */
static __always_inline void cdg_hystart(struct sock *sk, struct cdg *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 now = tp->tcp_mstamp;

	if (ca->rtt.min > 0) {
		__u32 round_min = (__u32)ca->rtt.min;

		ca->delay_min = ca->delay_min == 0 ? round_min : tcplab_min(ca->delay_min, round_min);
	}
	if (ca->delay_min == 0)
		return;
	if (param_hystart_detect & 1) {
		if (ca->last_ack && tcplab_is_cwnd_limited(tp)) {
			if (now < ca->last_ack + ACK_TRAIN_GAP_US) {
				ca->last_ack = now;
				if (now > ca->round_start + tcplab_max(ca->delay_min / 2, (__u32)HYSTART_FLOOR_US)) {
					cdg_exit_slow_start(sk, true);
					return;
				}
			}
		} else {
			ca->last_ack = now ? now : 1;
			ca->round_start = now;
		}
	}
	if (param_hystart_detect & 2) {
		if (ca->sample_cnt < HYSTART_DELAY_SAMPLES) {
			ca->sample_cnt++;
		} else {
			__u32 threshold = tcplab_max(ca->delay_min + ca->delay_min / 8, (__u32)HYSTART_FLOOR_US);

			if (ca->rtt.min > 0 && (__u32)ca->rtt.min > threshold)
				cdg_exit_slow_start(sk, false);
		}
	}
}

SEC("struct_ops")
void BPF_PROG(cdg_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = TCPLAB_STATE(struct cdg, sk);
	__u32 prior;

	if (ca->cwr_active)
		return;
	if (tcplab_in_slow_start(tp) && param_hystart_detect)
		cdg_hystart(sk, ca);
	if ((__s32)(tp->snd_una - ca->rtt_seq) > 0 && !minmax_empty(&ca->rtt)) {
		__s64 grad = 0;

		if (!minmax_empty(&ca->rtt_prev) && ca->storage_ok)
			grad = cdg_gradient(sk, ca);
		ca->rtt_seq = tp->snd_nxt;
		ca->rtt_prev = ca->rtt;
		ca->rtt.min = 0;
		ca->rtt.max = 0;
		ca->last_ack = 0;
		ca->sample_cnt = 0;
		if (grad > 0 && cdg_backoff(sk, ca, grad))
			return;
	}
	if (!tcplab_is_cwnd_limited(tp)) {
		ca->shadow_wnd = tcplab_min(ca->shadow_wnd, tp->snd_cwnd);
		return;
	}
	prior = tp->snd_cwnd;
	if (tcplab_in_slow_start(tp)) {
		acked = tcplab_slow_start(tp, acked);
		if (!acked)
			goto shadow;
	}
	tcplab_additive_increase(tp, tp->snd_cwnd, acked);
shadow:
	if (tp->snd_cwnd > prior) {
		__u32 grown = ca->shadow_wnd + (tp->snd_cwnd - prior);

		ca->shadow_wnd = grown < ca->shadow_wnd ? 0xffffffffU : grown;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(cdg_ssthresh, struct sock *sk)
{
	struct cdg *ca = TCPLAB_STATE(struct cdg, sk);

	ca->cwr_active = 0;
	return cdg_loss_ssthresh(tcp_sk(sk), ca);
}

SEC("struct_ops")
void BPF_PROG(cdg_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct cdg *ca = TCPLAB_STATE(struct cdg, sk);

	/* The end of a fast recovery (or of an ECN CWR round): a new gradient round next. */
	if (ev == CA_EVENT_COMPLETE_CWR)
		ca->complete_cwr = 1;
}

SEC("struct_ops")
__u32 BPF_PROG(cdg_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_cdg = {
	.init = (void *)cdg_init,
	.ssthresh = (void *)cdg_ssthresh,
	.cong_avoid = (void *)cdg_cong_avoid,
	.pkts_acked = (void *)cdg_pkts_acked,
	.cwnd_event = (void *)cdg_cwnd_event,
	.undo_cwnd = (void *)cdg_undo_cwnd,
	.name = "tcplab_cdg",
};
