/* tcplab_roccet: tcplab's `roccet` (crates/tcplab-core/src/cc/roccet.rs, docs/algorithms/roccet.md)
 * as a kernel congestion control: TCP ROCCET (papers/tcp-roccet.txt, section IV) on top of
 * tcplab's Linux-like CUBIC (crates/tcplab-core/src/cc/cubic.rs) with HyStart off, written here
 * from the simulator's rules (no code of the authors' module or of Linux's tcp_cubic.c).
 *
 * What it does, as the simulator does:
 * - srRTT = EWMA (alpha) of (RTT - RTT_min) / RTT_min in percent, from every RTT sample; RTT_min
 *   is the smallest sample (optionally re-estimated after 10 s). ORBITER's bound is srrtt_bound
 *   plus 100 |RTT_n - RTT_n-1| / RTT_min; LAUNCH compares with srrtt_bound alone.
 * - Per ACK: the segments delivered and cum_cwnd += cwnd x (time since the previous ACK) / RTT
 *   (RTT_min, or the smoothed RTT) are counted over an interval: launch_interval in slow start,
 *   orbiter_rtts x RTT_min (or the latest RTT, at most 1 s) in congestion avoidance. When an
 *   interval ends on an ACK that advances snd_una outside recovery and no drain runs:
 *   LAUNCH exits (first time cwnd = ssthresh = max(cwnd / 2, 2), later as a CUBIC loss) when
 *   the ACK test holds and srRTT > srrtt_bound ("roccet_launch_exit"); ORBITER cuts
 *   (W_max = max(W_max, cwnd), cwnd = ssthresh = max(beta cwnd, 2), new epoch, then `drain`
 *   without growth: "roccet_event") when the ACKs fall more than ack_tolerance short of
 *   cum_cwnd and srRTT is above the bound.
 * - A loss or ECN echo in slow start ends it with ssthresh = cwnd ("roccet_launch_exit",
 *   launch_loss = exit) or is ignored; otherwise CUBIC's reduction; a timeout is CUBIC's
 *   (state reset, W_max forgotten). Every congestion event restarts the counting interval.
 * - CUBIC as cubic.rs with its defaults for what ROCCET does not set: W(t) = origin +/- floor(C
 *   |t - K|^3) aimed one minimum RTT ahead, cnt = cwnd / (W - cwnd) (100 cwnd when W <= cwnd),
 *   at most 20 before the first loss, the Reno-friendly cap, cnt >= 2, growth only when
 *   cwnd-limited, the epoch shifted by an idle period, minimum RTT samples ignored in the first
 *   second of an epoch.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - Windows are whole segments (the simulator's CUBIC counts segments too); times are the
 *   kernel's microseconds: now = tcp_sock.tcp_mstamp, RTT samples = ack_sample.rtt_us
 *   (include/net/tcp.h; the RTT of the newest segment the ACK covers, Karn's rule applied,
 *   -1 without a sample), the smoothed RTT = srtt_us >> 3. CUBIC's t and K are counted in
 *   milliseconds (the simulator: f64 seconds); C |t - K|^3 is floored after dividing the cube
 *   by 10^6 first, off by less than 0.01 segment.
 * - The per-ACK work runs in pkts_acked, which net/ipv4/tcp_input.c calls at the end of
 *   tcp_clean_rtx_queue on every ACK, before the recovery state machine and cong_avoid. The
 *   segments an ACK delivered (cumulatively or by SACK, the simulator's acked_segments) are the
 *   growth of tcp_sock.delivered since the previous ACK. "Advances snd_una outside recovery" is
 *   ack_sample.pkts_acked > 0 with icsk_ca_state neither CWR nor Recovery (as of before this
 *   ACK's own recovery processing). Growth runs in cong_avoid, which the kernel calls only when
 *   tcp_may_raise_cwnd holds and no cwnd reduction runs.
 * - The ssthresh hook cannot tell a fast retransmit from a timeout: its result is taken as a
 *   fast retransmit's, and set_state / cwnd_event(CA_EVENT_LOSS) (which tcp_enter_loss raises
 *   right after asking for ssthresh) correct it for a timeout. LAUNCH's exit by a loss is
 *   reported when the kernel enters Recovery or CWR.
 * - The kernel, not the algorithm, runs loss recovery (SACK, RACK, PRR towards ssthresh, cwnd =
 *   ssthresh at its end); with launch_loss = ignore or ignore_loss, ssthresh is returned
 *   unchanged and PRR still paces the recovery. cwnd reductions of ROCCET's own (LAUNCH exit,
 *   ORBITER) are written to snd_cwnd directly.
 * - undo_cwnd keeps the window, as the simulator's ROCCET (it restores nothing on a spurious
 *   reduction); the kernel itself still restores ssthresh from prior_ssthresh
 *   (tcp_undo_cwnd_reduction).
 * - The idle shift measures the idle time from tcp_sock.lsndtime (jiffies, CONFIG_HZ = 250
 *   here: 4 ms steps); without CONFIG_HZ from kconfig the shift is skipped.
 * - cum_cwnd is kept in thousandths of a segment, srRTT and the bound in thousandths of a
 *   percent (floored at every step); the time between two ACKs counts at most 10 s.
 *
 * Every simulator parameter is exposed; floats in thousandths (alpha, srrtt_bound, ack_tolerance,
 * beta, c), durations in microseconds, choices as indices. The state (about 130 bytes) lives in
 * a BPF_MAP_TYPE_SK_STORAGE map, freed with the socket. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, alpha_milli, 200);
TCPLAB_PARAM(__u64, srrtt_bound_milli, 100000);
TCPLAB_PARAM(__u32, ack_tolerance_milli, 200);
TCPLAB_PARAM(__u32, launch_ack_test, 0); /* 0 difference, 1 rate_stalled */
TCPLAB_PARAM(__u32, launch_ack_difference, 10);
TCPLAB_PARAM(__u64, launch_interval_us, 100000);
TCPLAB_PARAM(__u32, orbiter_rtts, 5);
TCPLAB_PARAM(__u32, orbiter_period_rtt, 0); /* 0 min, 1 latest */
TCPLAB_PARAM(__u64, drain_us, 100000);
TCPLAB_PARAM(__u32, jitter_allowance, 1);
TCPLAB_PARAM(__u32, launch_loss, 0); /* 0 exit, 1 ignore */
TCPLAB_PARAM(__u32, ignore_loss, 0);
TCPLAB_PARAM(__u32, rtt_min_reestimate, 0);
TCPLAB_PARAM(__u32, cum_cwnd_rtt, 0); /* 0 min, 1 smoothed */
TCPLAB_PARAM(__u32, beta_milli, 700);
TCPLAB_PARAM(__u32, c_milli, 400);
TCPLAB_PARAM(__u32, fast_convergence, 1);
TCPLAB_PARAM(__u32, tcp_friendliness, 1);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

extern unsigned int CONFIG_HZ __kconfig __weak;

/* cubic.rs's defaults that ROCCET does not change. */
#define CNT_BEFORE_LOSS 20
#define MIN_CNT 2
/* Minimum RTT samples in the first second of an epoch are not used (cubic.rs). */
#define EPOCH_SETTLING_US USEC_PER_SEC
#define RTT_MIN_REESTIMATE_AFTER_US (10 * USEC_PER_SEC)
#define ORBITER_LATEST_CAP_US USEC_PER_SEC
#define MAX_ACK_GAP_US (10 * USEC_PER_SEC)
/* The largest |t - K| whose cube fits a u64 (in ms: 2000 s). */
#define MAX_OFFSET_MS 2000000ULL

/* What ssthresh decided, for set_state / cwnd_event to finish. */
enum pending {
	PENDING_NONE,
	PENDING_IGNORED,
	PENDING_LAUNCH_EXIT,
	PENDING_CUBIC,
};

struct roccet {
	/* CUBIC (cubic.rs) */
	__u64 epoch_start_us; /* 0: no epoch */
	__u32 w_max;
	__u32 origin;
	__u32 k_ms;
	__u32 ack_count;
	__u32 reno_estimate;
	__u32 cnt;
	__u32 cubic_min_rtt_us; /* 0: none */
	/* ROCCET */
	__u32 rtt_min_us; /* 0: none */
	__u32 last_rtt_us; /* 0: none */
	__u32 last_delivered;
	__u64 rtt_min_stamp_us;
	__u64 sr_rtt; /* thousandths of a percent */
	__u64 bound;  /* thousandths of a percent */
	__u64 interval_acks; /* segments */
	__u64 interval_cum_cwnd; /* thousandths of a segment */
	__u64 previous_launch_acks;
	__u64 interval_start_us; /* 0: none */
	__u64 last_ack_us;	 /* 0: none */
	__u64 drain_until_us;
	__u32 pending_cwnd;
	__u8 has_previous_launch_acks;
	__u8 first_slow_start_done;
	__u8 grow_this_ack;
	__u8 pending;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct roccet);
} roccet_state SEC(".maps");

static __always_inline struct roccet *state_of(struct sock *sk)
{
	return bpf_sk_storage_get(&roccet_state, sk, 0, 0);
}

/* ---- CUBIC ---------------------------------------------------------------------------- */

static __always_inline __u32 beta_of(__u32 cwnd)
{
	return tcplab_max((__u32)((__u64)cwnd * param_beta_milli / 1000), 2U);
}

/* cubic.rs on_congestion_event (fast retransmit or ECN): new epoch, W_max (fast convergence),
 * returns ssthresh = max(floor(beta cwnd), 2). */
static __always_inline __u32 cubic_loss(struct roccet *s, __u32 cwnd)
{
	s->epoch_start_us = 0;
	if (cwnd < s->w_max && param_fast_convergence)
		s->w_max = (__u64)cwnd * (1000 + param_beta_milli) / 2000;
	else
		s->w_max = cwnd;
	return beta_of(cwnd);
}

/* cubic.rs reset (after a timeout). */
static __always_inline void cubic_reset(struct roccet *s)
{
	s->w_max = 0;
	s->epoch_start_us = 0;
	s->origin = 0;
	s->k_ms = 0;
	s->ack_count = 0;
	s->reno_estimate = 0;
	s->cnt = 0;
	s->cubic_min_rtt_us = 0;
}

/* cubic.rs update: cnt for this ACK (acked segments left after slow start). */
static __always_inline void cubic_update(struct roccet *s, __u64 now, __u32 cwnd, __u32 acked)
{
	__u64 t_ms, offset, cube, delta, target, cnt;

	s->ack_count = s->ack_count + acked < s->ack_count ? 0xffffffff : s->ack_count + acked;
	if (!s->epoch_start_us) {
		s->epoch_start_us = now ? now : 1;
		s->ack_count = acked;
		s->reno_estimate = cwnd;
		if (s->w_max <= cwnd) {
			s->k_ms = 0;
			s->origin = cwnd;
		} else {
			/* K = cbrt((W_max - cwnd) / C) s = cbrt((W_max - cwnd) 10^12 / c_milli) ms. */
			__u64 gap = tcplab_min((__u64)(s->w_max - cwnd), 1000000ULL);

			s->k_ms = tcplab_cbrt(tcplab_min(gap * 1000000000000ULL / (param_c_milli ? param_c_milli : 1), 1ULL << 60));
			s->origin = s->w_max;
		}
	}
	t_ms = (now - s->epoch_start_us + s->cubic_min_rtt_us) / USEC_PER_MSEC;
	offset = t_ms >= s->k_ms ? t_ms - s->k_ms : s->k_ms - t_ms;
	offset = tcplab_min(offset, MAX_OFFSET_MS);
	cube = offset * offset * offset;
	/* C x (offset / 1000)^3 = c_milli x cube / 10^12 */
	delta = cube / 1000000 * param_c_milli / 1000000;
	if (t_ms >= s->k_ms)
		target = s->origin + delta;
	else
		target = delta >= s->origin ? 0 : s->origin - delta;
	if (target > cwnd)
		cnt = tcplab_max((__u64)cwnd / (target - cwnd), 1ULL);
	else
		cnt = tcplab_min((__u64)cwnd * 100, 0xffffffffULL);
	if (s->w_max == 0)
		cnt = tcplab_min(cnt, (__u64)CNT_BEFORE_LOSS);
	if (param_tcp_friendliness) {
		/* One segment of W_est per cwnd / alpha acked, alpha = 3 (1 - beta) / (1 + beta). */
		__u64 per_segment = (__u64)cwnd * (1000 + param_beta_milli) / (3 * (1000 - tcplab_min(param_beta_milli, 999U)));

		if (per_segment == 0)
			per_segment = 1;
		if (s->ack_count > per_segment) {
			__u64 n = (s->ack_count - 1) / per_segment;

			s->ack_count -= n * per_segment;
			s->reno_estimate += n;
		}
		if (s->reno_estimate > cwnd)
			cnt = tcplab_min(cnt, (__u64)cwnd / (s->reno_estimate - cwnd));
	}
	s->cnt = tcplab_max(cnt, (__u64)MIN_CNT);
}

/* ---- ROCCET --------------------------------------------------------------------------- */

static __always_inline void observe_rtt(struct roccet *s, __u64 now, __u32 rtt)
{
	bool reestimate = param_rtt_min_reestimate && now - s->rtt_min_stamp_us > RTT_MIN_REESTIMATE_AFTER_US;
	__u64 min, relative, jitter = 0;

	if (s->rtt_min_us && rtt >= s->rtt_min_us) {
		if (reestimate) {
			s->rtt_min_us = ((__u64)rtt * 7 + (__u64)s->rtt_min_us * 3) / 10;
			s->rtt_min_stamp_us = now;
		}
	} else {
		s->rtt_min_us = rtt;
		s->rtt_min_stamp_us = now;
	}
	min = tcplab_max(s->rtt_min_us, 1U);
	relative = rtt > min ? (rtt - min) * 100000 / min : 0;
	s->sr_rtt = (param_alpha_milli * relative + (1000 - param_alpha_milli) * s->sr_rtt) / 1000;
	if (param_jitter_allowance && s->last_rtt_us) {
		__u64 diff = rtt > s->last_rtt_us ? rtt - s->last_rtt_us : s->last_rtt_us - rtt;

		jitter = diff * 100000 / min;
	}
	s->bound = param_srrtt_bound_milli + jitter;
	s->last_rtt_us = rtt;
}

/* ACKs and cum_cwnd of this ACK. */
static __always_inline void count(struct roccet *s, struct tcp_sock *tp, __u64 now, __u32 acked)
{
	__u64 rtt = param_cum_cwnd_rtt ? tp->srtt_us >> 3 : s->rtt_min_us;

	if (s->last_ack_us && rtt > 0) {
		__u64 whole = (__u64)tp->snd_cwnd * tcplab_min(now - s->last_ack_us, MAX_ACK_GAP_US);

		s->interval_cum_cwnd += whole / rtt * 1000 + whole % rtt * 1000 / rtt;
	}
	s->last_ack_us = now;
	s->interval_acks += acked;
}

static __always_inline void restart_interval(struct roccet *s, __u64 now)
{
	s->interval_start_us = now;
	s->interval_acks = 0;
	s->interval_cum_cwnd = 0;
}

static __always_inline void launch(struct sock *sk, struct roccet *s)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 acks = s->interval_acks * 1000;
	bool full;

	if (param_launch_ack_test == 0) {
		__u64 diff = acks > s->interval_cum_cwnd ? acks - s->interval_cum_cwnd : s->interval_cum_cwnd - acks;

		full = diff >= (__u64)param_launch_ack_difference * 1000;
	} else {
		full = s->has_previous_launch_acks && s->interval_acks <= s->previous_launch_acks;
	}
	s->previous_launch_acks = s->interval_acks;
	s->has_previous_launch_acks = 1;
	if (!full || s->sr_rtt <= param_srrtt_bound_milli)
		return;
	if (s->first_slow_start_done) {
		__u32 ssthresh = cubic_loss(s, tp->snd_cwnd);

		tp->snd_ssthresh = ssthresh;
		tp->snd_cwnd = ssthresh;
		tp->snd_cwnd_cnt = 0;
	} else {
		__u32 halved = tcplab_max(tp->snd_cwnd / 2, 2U);

		tp->snd_cwnd = halved;
		tp->snd_ssthresh = halved;
		s->first_slow_start_done = 1;
	}
	TCPLAB_EVENT(sk, "roccet_launch_exit", tp->snd_cwnd);
}

static __always_inline void orbiter(struct sock *sk, struct roccet *s, __u64 now)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 acks = s->interval_acks * 1000, cum = s->interval_cum_cwnd;
	__u32 reduced;

	/* short = cum - acks > tolerance x cum (never when the ACKs reach cum_cwnd) */
	if (cum <= acks || (cum - acks) * 1000 <= (__u64)param_ack_tolerance_milli * cum)
		return;
	if (s->sr_rtt <= s->bound)
		return;
	s->w_max = tcplab_max(s->w_max, tp->snd_cwnd);
	s->epoch_start_us = 0;
	reduced = beta_of(tp->snd_cwnd);
	tp->snd_cwnd = reduced;
	tp->snd_ssthresh = reduced;
	tp->snd_cwnd_cnt = 0;
	s->drain_until_us = now + param_drain_us;
	TCPLAB_EVENT(sk, "roccet_event", reduced);
}

static __always_inline __u64 orbiter_period(struct roccet *s)
{
	__u64 rtts = param_orbiter_rtts;

	if (param_orbiter_period_rtt == 1 && s->last_rtt_us)
		return tcplab_min(rtts * s->last_rtt_us, ORBITER_LATEST_CAP_US);
	return rtts * (s->rtt_min_us ? s->rtt_min_us : USEC_PER_SEC);
}

SEC("struct_ops")
void BPF_PROG(roccet_init, struct sock *sk)
{
	struct roccet *s = bpf_sk_storage_get(&roccet_state, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (!s)
		return;
	__builtin_memset(s, 0, sizeof(*s));
	s->bound = param_srrtt_bound_milli;
	s->last_delivered = tcp_sk(sk)->delivered;
	s->grow_this_ack = 1;
}

SEC("struct_ops")
void BPF_PROG(roccet_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct roccet *s = state_of(sk);
	__u64 now = tp->tcp_mstamp, interval;
	__u32 acked;
	bool in_slow_start, draining;

	if (!s)
		return;
	acked = tp->delivered - s->last_delivered;
	s->last_delivered = tp->delivered;
	if (sample->rtt_us >= 0) {
		__u32 rtt = sample->rtt_us ? sample->rtt_us : 1;

		observe_rtt(s, now, rtt);
		/* cubic.rs: the minimum RTT, except in the first second of an epoch. */
		if (!(s->epoch_start_us && now - s->epoch_start_us < EPOCH_SETTLING_US) &&
		    (!s->cubic_min_rtt_us || rtt < s->cubic_min_rtt_us))
			s->cubic_min_rtt_us = rtt;
	}
	count(s, tp, now, acked);
	if (!s->interval_start_us)
		s->interval_start_us = now;
	in_slow_start = tcplab_in_slow_start(tp);
	interval = in_slow_start ? param_launch_interval_us : orbiter_period(s);
	draining = now < s->drain_until_us;
	/* The simulator decides on the drain before this ACK's check: the ACK that starts one
	 * still grows cwnd. */
	s->grow_this_ack = !draining;
	if (now - s->interval_start_us >= interval) {
		__u8 ca_state = inet_csk(sk)->icsk_ca_state;
		bool may_raise = sample->pkts_acked > 0 && ca_state != TCP_CA_CWR && ca_state != TCP_CA_Recovery;

		if (!draining && may_raise) {
			if (in_slow_start)
				launch(sk, s);
			else
				orbiter(sk, s, now);
		}
		restart_interval(s, now);
	}
}

SEC("struct_ops")
void BPF_PROG(roccet_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct roccet *s = state_of(sk);

	if (!s || !s->grow_this_ack)
		return;
	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	cubic_update(s, tp->tcp_mstamp, tp->snd_cwnd, acked);
	tcplab_additive_increase(tp, s->cnt, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(roccet_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct roccet *s = state_of(sk);
	bool in_slow_start = tcplab_in_slow_start(tp);

	if (!s)
		return beta_of(tp->snd_cwnd);
	if (param_ignore_loss || (in_slow_start && param_launch_loss == 1)) {
		s->pending = PENDING_IGNORED;
		return tp->snd_ssthresh;
	}
	if (in_slow_start) {
		s->pending = PENDING_LAUNCH_EXIT;
		s->pending_cwnd = tp->snd_cwnd;
		return tcplab_max(tp->snd_cwnd, 2U);
	}
	s->pending = PENDING_CUBIC;
	return cubic_loss(s, tp->snd_cwnd);
}

SEC("struct_ops")
void BPF_PROG(roccet_set_state, struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct roccet *s = state_of(sk);

	if (!s)
		return;
	if (new_state == TCP_CA_Loss) {
		/* A timeout: cubic.rs resets its state (ROCCET's RTT_min and srRTT stay). */
		if (s->pending != PENDING_IGNORED)
			cubic_reset(s);
		s->pending = PENDING_NONE;
		restart_interval(s, tp->tcp_mstamp);
	} else if (new_state == TCP_CA_Recovery || new_state == TCP_CA_CWR) {
		if (s->pending == PENDING_LAUNCH_EXIT) {
			s->first_slow_start_done = 1;
			TCPLAB_EVENT(sk, "roccet_launch_exit", tp->snd_cwnd);
		}
		if (s->pending != PENDING_NONE)
			restart_interval(s, tp->tcp_mstamp);
		s->pending = PENDING_NONE;
	}
}

SEC("struct_ops")
void BPF_PROG(roccet_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct roccet *s = state_of(sk);

	if (!s)
		return;
	if (event == CA_EVENT_LOSS && s->pending == PENDING_LAUNCH_EXIT) {
		/* tcp_enter_loss asked for ssthresh: it is a timeout, which is CUBIC's. */
		tp->snd_ssthresh = beta_of(s->pending_cwnd);
		s->pending = PENDING_CUBIC;
	} else if (event == CA_EVENT_TX_START && s->epoch_start_us && CONFIG_HZ) {
		/* Sending after an idle period: the curve resumes where it stopped. */
		__u64 now = tp->tcp_mstamp;
		__u64 idle = (__u64)((__u32)bpf_jiffies64() - tp->lsndtime) * USEC_PER_SEC / CONFIG_HZ;

		s->epoch_start_us = tcplab_min(s->epoch_start_us + idle, now);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(roccet_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_roccet = {
	.init = (void *)roccet_init,
	.ssthresh = (void *)roccet_ssthresh,
	.cong_avoid = (void *)roccet_cong_avoid,
	.set_state = (void *)roccet_set_state,
	.cwnd_event = (void *)roccet_cwnd_event,
	.pkts_acked = (void *)roccet_pkts_acked,
	.undo_cwnd = (void *)roccet_undo_cwnd,
	.name = "tcplab_roccet",
};
