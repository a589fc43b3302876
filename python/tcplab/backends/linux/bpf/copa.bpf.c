/* tcplab_copa: tcplab's `copa` (crates/tcplab-core/src/cc/copa.rs, docs/algorithms/copa.md) as a
 * kernel congestion control: Copa (Arun and Balakrishnan, NSDI 2018), with the simulator's
 * choices (genericCC and mvfst) where the paper is open. Copa has no Linux module.
 *
 * - Per ACK: RTTmin = the smallest RTT over min_rtt_window, RTTstanding = the smallest over the
 *   last srtt / 2, d_q = RTTstanding - RTTmin. Up when cwnd / RTTstanding <= 1 / (delta d_q),
 *   else down, by v / (delta cwnd) packets per acknowledged packet; cwnd >= 2 packets.
 * - Velocity v: once per srtt cwnd is compared with its value at the last comparison; after three
 *   RTTs in the same direction v doubles every RTT (capped at cwnd); a change resets v to 1, at
 *   once when an ACK's decision turns while v > 1 (mvfst).
 * - Slow start: + 1 packet per acknowledged packet until the first ACK that says "down".
 * - Pacing at 2 cwnd / RTTstanding: sk_pacing_status = SK_PACING_NEEDED (the kernel paces
 *   internally) and sk_pacing_rate in bytes per second.
 * - mode_switching: the queue is nearly empty when d_q <= 10% of (RTTmax - RTTmin), RTTmax the
 *   largest RTT over 4 srtt; not nearly empty for 5 srtt: competitive mode (event
 *   "copa_competitive"), where 1/delta grows by 1 per srtt and halves on a loss or ECN-Echo (at
 *   most once per srtt, never below the default 1/delta); back to default mode (event
 *   "copa_default") restores delta.
 * - Losses are otherwise ignored and Copa owns the window in recovery (cong_control: the kernel
 *   then runs no PRR); a retransmission timeout leaves one packet and restarts slow start, v = 1.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - The per-ACK hook is cong_control(sk, ack, flag, rate_sample): the RTT sample is
 *   rate_sample.rtt_us (the kernel's RTT of the most recently sent segment this ACK delivered,
 *   Karn's rule applied; -1 when none), the acknowledged packets rate_sample.acked_sacked, srtt
 *   tp->srtt_us >> 3, the time tp->tcp_mstamp; microseconds throughout (the simulator:
 *   nanoseconds).
 * - cwnd is kept in 1/65536 packets and 1/delta in 1/65536 (delta has no exact fixed-point form;
 *   1/delta = 1000 / delta_milli); snd_cwnd is the whole packets, where the simulator's sender
 *   uses the fractional window in bytes.
 * - The windowed filters are monotonic deques as in the simulator, but of at most 512 entries
 *   each (in socket storage): with more, the oldest entry is forgotten early. A deque holds the
 *   staircase of samples that are the extreme of everything after them; 512 is several RTTs of
 *   ACKs on a steady ramp.
 * - A loss or ECN-Echo is the kernel's entry into Recovery or CWR (set_state), a timeout its
 *   entry into Loss (CA_EVENT_LOSS). Retransmission itself is the kernel's (SACK, RACK); ssthresh
 *   stays at TCP_INFINITE_SSTHRESH so that the kernel never sets cwnd from it.
 *
 * All simulator parameters are exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, delta_milli, 500);
TCPLAB_PARAM(__u64, min_rtt_window_us, 10000000);
TCPLAB_PARAM(__u32, mode_switching, 1);

#define FP 16
#define FP_ONE (1ULL << FP)
#define CAP 512
#define MASK (CAP - 1)
#define MIN_CWND_FP (2ULL << FP)
#define RTT_MAX_WINDOW_SRTTS 4
#define EMPTY_QUEUE_PERIOD_SRTTS 5
#define SAME_DIRECTION_RTTS 3

struct wfilter {
	__u64 t[CAP];
	__u32 v[CAP];
	__u32 head;
	__u32 len;
};

struct copa_filters {
	struct wfilter min;
	struct wfilter standing;
	struct wfilter max;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct copa_filters);
} copa_filters SEC(".maps");

struct copa {
	__u64 cwnd_fp;
	__u64 inv_delta_fp; /* 1/delta in use */
	__u64 v_fp;	    /* velocity */
	__u64 recorded_at;  /* velocity comparison: when (0: none) and at what cwnd */
	__u64 recorded_cwnd_fp;
	__u64 last_nearly_empty;
	__u64 last_delta_increase;
	__u64 last_delta_decrease; /* 0: never */
	__u32 same_direction_rtts;
	__u8 direction_up;
	__u8 slow_start;
	__u8 competitive;
	__u8 storage_ok;
};

static __always_inline __u64 copa_default_inv_delta(void)
{
	__u64 milli = param_delta_milli ? param_delta_milli : 1;

	return (1000ULL << FP) / milli;
}

SEC("struct_ops")
void BPF_PROG(copa_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct copa *ca = TCPLAB_STATE(struct copa, sk);
	__u64 now = tp->tcp_mstamp;

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->cwnd_fp = (__u64)tcplab_max(tp->snd_cwnd, 1U) << FP;
	ca->inv_delta_fp = copa_default_inv_delta();
	ca->v_fp = FP_ONE;
	ca->direction_up = 1;
	ca->slow_start = 1;
	/* The simulator's clock starts with the flow; the kernel's is the boot's. */
	ca->last_nearly_empty = now;
	ca->last_delta_increase = now;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	if (bpf_sk_storage_get(&copa_filters, sk, 0, BPF_SK_STORAGE_GET_F_CREATE))
		ca->storage_ok = 1;
}

/* The deques' loops run through bpf_loop (the verifier checks each callback once; unrolled, six
 * loops of 512 steps exceed its budget). */
struct wf_ctx {
	struct wfilter *f;
	__u64 now;
	__u64 window;
	__u32 value;
	__u32 keep_max;
};

/* Forgets entries older than the window before now (never the newest). */
static long wf_expire_step(__u64 index, void *data)
{
	struct wf_ctx *c = data;
	struct wfilter *f = c->f;
	__u32 head = f->head & MASK;

	if (f->len <= 1 || f->t[head] + c->window >= c->now)
		return 1;
	f->head = (head + 1) & MASK;
	f->len--;
	return 0;
}

/* Pops from the back the entries the new value dominates. */
static long wf_pop_step(__u64 index, void *data)
{
	struct wf_ctx *c = data;
	struct wfilter *f = c->f;
	__u32 back, old;

	if (f->len == 0)
		return 1;
	back = (f->head + f->len - 1) & MASK;
	old = f->v[back];
	if (c->keep_max ? old > c->value : old < c->value)
		return 1;
	f->len--;
	return 0;
}

static __always_inline void wf_expire(struct wfilter *f, __u64 now, __u64 window)
{
	struct wf_ctx c = { .f = f, .now = now, .window = window };

	bpf_loop(CAP, wf_expire_step, &c, 0);
}

static __always_inline void wf_update(struct wfilter *f, __u64 now, __u32 value, __u64 window, bool keep_max)
{
	struct wf_ctx c = { .f = f, .now = now, .window = window, .value = value, .keep_max = keep_max };
	__u32 idx;

	bpf_loop(CAP, wf_pop_step, &c, 0);
	if (f->len >= CAP) {
		/* Full: forget the oldest entry early. */
		f->head = (f->head + 1) & MASK;
		f->len = CAP - 1;
	}
	idx = (f->head + f->len) & MASK;
	f->t[idx] = now;
	f->v[idx] = value;
	f->len++;
	bpf_loop(CAP, wf_expire_step, &c, 0);
}

static __always_inline __u32 wf_get(struct wfilter *f)
{
	return f->len ? f->v[f->head & MASK] : 0;
}

static __always_inline void copa_set_cwnd(struct tcp_sock *tp, struct copa *ca, __u64 fp)
{
	__u64 clamp = (__u64)tcplab_max(tp->snd_cwnd_clamp, 1U) << FP;

	if (fp < MIN_CWND_FP)
		fp = MIN_CWND_FP;
	if (fp > clamp)
		fp = clamp;
	ca->cwnd_fp = fp;
}

static __always_inline void copa_velocity_reset(struct copa *ca, __u8 up)
{
	ca->direction_up = up;
	ca->v_fp = FP_ONE;
	ca->same_direction_rtts = 0;
}

/* Paper section 2.2: the mode, and competitive mode's + 1 on 1/delta per srtt. */
static __always_inline void copa_update_mode(struct sock *sk, struct copa *ca, __u64 now, __u32 qd, __u32 rmin,
					     __u32 rmax, __u64 srtt)
{
	__u64 spread = rmax > rmin ? rmax - rmin : 0;
	bool competitive;

	if ((__u64)qd * 10 <= spread)
		ca->last_nearly_empty = now;
	competitive = now > ca->last_nearly_empty + EMPTY_QUEUE_PERIOD_SRTTS * srtt;
	if (!ca->competitive && competitive) {
		ca->competitive = 1;
		ca->last_delta_increase = now;
		TCPLAB_EVENT(sk, "copa_competitive", (__u32)(ca->cwnd_fp >> FP));
	} else if (ca->competitive && !competitive) {
		ca->competitive = 0;
		ca->inv_delta_fp = copa_default_inv_delta();
		TCPLAB_EVENT(sk, "copa_default", (__u32)(ca->cwnd_fp >> FP));
	} else if (ca->competitive && now >= ca->last_delta_increase + srtt) {
		ca->inv_delta_fp += FP_ONE;
		ca->last_delta_increase = now;
	}
}

SEC("struct_ops")
void BPF_PROG(copa_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct copa *ca = TCPLAB_STATE(struct copa, sk);
	struct copa_filters *fl;
	__u64 now = tp->tcp_mstamp, srtt = tp->srtt_us >> 3, cwnd_fp, step;
	long rtt = rs->rtt_us;
	__u32 acked = rs->acked_sacked, rmin, standing, qd;
	bool increase;
	__u8 up;

	if (!ca->storage_ok)
		return;
	fl = bpf_sk_storage_get(&copa_filters, sk, 0, 0);
	if (!fl)
		return;
	if (!srtt && rtt > 0)
		srtt = rtt;
	if (rtt > 0) {
		__u32 sample = rtt > 0xffffffffL ? 0xffffffffU : (__u32)rtt;

		wf_update(&fl->min, now, sample, param_min_rtt_window_us, false);
		wf_update(&fl->standing, now, sample, srtt / 2, false);
		wf_update(&fl->max, now, sample, RTT_MAX_WINDOW_SRTTS * srtt, true);
	} else {
		wf_expire(&fl->min, now, param_min_rtt_window_us);
		wf_expire(&fl->standing, now, srtt / 2);
		wf_expire(&fl->max, now, RTT_MAX_WINDOW_SRTTS * srtt);
	}
	if (acked == 0 || !fl->standing.len || !fl->min.len)
		goto out;
	standing = wf_get(&fl->standing);
	rmin = wf_get(&fl->min);
	qd = standing > rmin ? standing - rmin : 0;
	if (param_mode_switching && fl->max.len)
		copa_update_mode(sk, ca, now, qd, rmin, wf_get(&fl->max), srtt);
	/* lambda <= lambda_t  <=>  cwnd d_q <= RTTstanding / delta. */
	increase = ca->cwnd_fp * qd <= (__u64)standing * ca->inv_delta_fp;
	if (ca->slow_start && increase) {
		copa_set_cwnd(tp, ca, ca->cwnd_fp + ((__u64)acked << FP));
		goto out;
	}
	ca->slow_start = 0;
	up = increase ? 1 : 0;
	cwnd_fp = ca->cwnd_fp;
	/* mvfst's changeDirection. */
	if (up != ca->direction_up && ca->v_fp > FP_ONE) {
		copa_velocity_reset(ca, up);
		ca->recorded_at = now ? now : 1;
		ca->recorded_cwnd_fp = cwnd_fp;
	}
	/* Once per srtt: compare with the cwnd of the last comparison. */
	if (!ca->recorded_at) {
		ca->recorded_at = now ? now : 1;
		ca->recorded_cwnd_fp = cwnd_fp;
	} else if (now >= ca->recorded_at + srtt) {
		__u8 dir = cwnd_fp > ca->recorded_cwnd_fp ? 1 : 0;

		if (dir == ca->direction_up) {
			ca->same_direction_rtts++;
			if (ca->same_direction_rtts >= SAME_DIRECTION_RTTS)
				ca->v_fp = tcplab_min(2 * ca->v_fp, tcplab_max(cwnd_fp, FP_ONE));
		} else {
			copa_velocity_reset(ca, dir);
		}
		ca->recorded_at = now ? now : 1;
		ca->recorded_cwnd_fp = cwnd_fp;
	}
	/* step = acked v / (delta cwnd) packets, in 1/65536: acked v_fp << 8 / (cwnd_fp >> 8) is
	 * acked v / cwnd (<= acked, as v <= cwnd) in 1/65536, below 2^30 for acked < 2^14; times
	 * 1/delta in 1/65536 (< 2^34) stays in u64. cwnd_fp >> 8 >= 256 (cwnd >= 1 packet). */
	step = (((__u64)acked * ca->v_fp) << 8) / tcplab_max(cwnd_fp >> 8, 1ULL);
	step = step * ca->inv_delta_fp >> FP;
	if (up)
		copa_set_cwnd(tp, ca, cwnd_fp + step);
	else
		copa_set_cwnd(tp, ca, cwnd_fp > step ? cwnd_fp - step : 0);
out:
	tp->snd_cwnd = (__u32)tcplab_max(ca->cwnd_fp >> FP, 1ULL);
	if (fl->standing.len) {
		__u64 st = tcplab_max(wf_get(&fl->standing), 1U);
		/* 2 cwnd bytes (< 2^48) x 10^6 / RTTstanding us: bytes per second. */
		__u64 rate = ((2 * ca->cwnd_fp * tp->mss_cache) >> FP) * USEC_PER_SEC / st;

		sk->sk_pacing_rate = rate ? rate : 1;
	}
}

SEC("struct_ops")
void BPF_PROG(copa_set_state, struct sock *sk, __u8 new_state)
{
	struct copa *ca = TCPLAB_STATE(struct copa, sk);
	__u64 now = tcp_sk(sk)->tcp_mstamp, srtt = tcp_sk(sk)->srtt_us >> 3;
	__u8 old = inet_csk(sk)->icsk_ca_state;

	/* A loss (entering Recovery) or an ECN-Echo (entering CWR): competitive mode halves 1/delta,
	 * at most once per srtt. */
	if ((new_state == TCP_CA_Recovery || new_state == TCP_CA_CWR) && new_state != old) {
		bool recent = ca->last_delta_decrease && now < ca->last_delta_decrease + srtt;

		if (ca->competitive && !recent) {
			ca->inv_delta_fp = tcplab_max(ca->inv_delta_fp / 2, copa_default_inv_delta());
			ca->last_delta_decrease = now ? now : 1;
		}
	}
}

SEC("struct_ops")
void BPF_PROG(copa_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct copa *ca = TCPLAB_STATE(struct copa, sk);

	if (ev != CA_EVENT_LOSS)
		return;
	/* A retransmission timeout: one packet, slow start again, v = 1. */
	ca->cwnd_fp = FP_ONE;
	ca->slow_start = 1;
	copa_velocity_reset(ca, 1);
	ca->recorded_at = 0;
	tcp_sk(sk)->snd_cwnd = 1;
}

SEC("struct_ops")
__u32 BPF_PROG(copa_ssthresh, struct sock *sk)
{
	return TCP_INFINITE_SSTHRESH;
}

SEC("struct_ops")
__u32 BPF_PROG(copa_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_copa = {
	.init = (void *)copa_init,
	.ssthresh = (void *)copa_ssthresh,
	.cong_control = (void *)copa_cong_control,
	.set_state = (void *)copa_set_state,
	.cwnd_event = (void *)copa_cwnd_event,
	.undo_cwnd = (void *)copa_undo_cwnd,
	.name = "tcplab_copa",
};
