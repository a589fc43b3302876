/* tcplab_tcp_do: tcplab's `tcp_do` (crates/tcplab-core/src/cc/tcp_do.rs, docs/algorithms/tcp_do.md)
 * as a kernel congestion control: TCP-do (papers/tcp-do.txt, Algorithm 1, equations 1 and 2),
 * congestion control from the frequency of RTT oscillations, on NewReno's window rules.
 *
 * As the simulator: an RTT sample that differs from the previous one by more than
 * oscillation_delta is an oscillation. At the first ACK `window` after the window started, the
 * frequency (oscillations per millisecond of the elapsed time) is compared with the threshold
 * (initial_threshold at the start); a window that ends in loss recovery is not evaluated (its
 * count is dropped). A window is congested when the frequency exceeds the threshold and the
 * weighted average of the last rtt_history RTT samples (weights 1..n, newest heaviest) exceeds
 * the minimum RTT by more than rtt_rise: cwnd = max(cwnd x max(0.7, 1 - 0.1 severity), 2),
 * ssthresh = cwnd, severity = frequency / threshold ("tcpdo_reduction"). A calm window raises
 * the threshold by min(1.5, 1 + 0.2 severity) for the largest severity since the last calm
 * window, then multiplies it by calm_threshold_factor, and (calm_increase_per = window) adds
 * calm_increase segments; the threshold stays within 0.5 to 4 x initial_threshold. Between
 * windows cwnd grows as RFC 5681 (one segment per ACK in slow start, up to ssthresh; 1/cwnd per
 * ACK in avoidance) plus, while not congested and calm_increase_per = rtt, calm_increase x
 * (segments acknowledged / cwnd) per ACK. Losses: ssthresh = max(FlightSize / 2, 2).
 *
 * Where the kernel's inputs differ from the simulator's:
 * - Windows are whole segments; the simulator counts bytes. The fractional growth (1/cwnd per ACK,
 *   the calm increase) is kept here in 2^-20 segment and added to snd_cwnd in whole segments; a
 *   reduction keeps whole segments (floor), where the simulator keeps bytes.
 * - RTT samples are ack_sample.rtt_us in pkts_acked, in whole microseconds (the simulator's are
 *   nanoseconds), so oscillation_delta compares microseconds. pkts_acked runs on every ACK before
 *   the recovery state machine; "in recovery" is icsk_ca_state Recovery or CWR as of before the
 *   ACK. Growth runs in cong_avoid, which the kernel calls only when the window may grow.
 * - Fixed point: the frequency and threshold in millionths of an oscillation per millisecond,
 *   severity and factors in millionths; rtt_rise in thousandths.
 * - Loss recovery (SACK, RACK, PRR towards ssthresh) is the kernel's; undo_cwnd keeps the window,
 *   as the simulator (which has no undo), while the kernel still restores ssthresh from
 *   prior_ssthresh on a spurious reduction.
 *
 * Every simulator parameter is exposed (initial_threshold and calm_threshold_factor in millionths,
 * rtt_rise in thousandths, durations in microseconds, calm_increase_per as its index). The RTT
 * history (up to 1000 samples) is kept in a BPF_MAP_TYPE_SK_STORAGE map, freed with the socket;
 * its weighted average is kept as running sums, so no loop runs over it. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, oscillation_delta_us, 10);
TCPLAB_PARAM(__u64, window_us, 100000);
TCPLAB_PARAM(__u64, initial_threshold_micro, 1000000);
TCPLAB_PARAM(__u32, calm_increase, 7);
TCPLAB_PARAM(__u32, calm_increase_per, 0); /* 0 rtt, 1 window */
TCPLAB_PARAM(__u64, calm_threshold_factor_micro, 980000);
TCPLAB_PARAM(__u32, rtt_history, 8);
TCPLAB_PARAM(__u64, rtt_rise_milli, 0);

#define MAX_HISTORY 1000
#define FRACTION_SHIFT 20
#define MICRO 1000000ULL
/* Equation (1)'s floor and equation (2)'s ceiling, in millionths. */
#define MIN_REDUCTION 700000ULL
#define MAX_RECOVERY 1500000ULL
/* A frequency above this (10^6 oscillations per ms) cannot occur; it bounds the products. */
#define MAX_FREQUENCY (MICRO * MICRO)

struct tcp_do {
	__u64 window_start_us; /* 0: none */
	__u64 oscillations;
	__u64 threshold;	/* millionths of an oscillation per ms */
	__u64 pending_severity; /* millionths; 0: none */
	__u64 fraction;		/* 2^-20 segment */
	__u64 sum;		/* the history's samples, microseconds */
	__u64 weighted_sum;	/* the same with weights 1..len, newest heaviest */
	__u32 last_rtt_us;	/* 0: none */
	__u32 min_rtt_us;	/* 0: none */
	__u32 len;
	__u32 next;
	__u32 congested;
	__u32 history[MAX_HISTORY];
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tcp_do);
} tcp_do_state SEC(".maps");

static __always_inline struct tcp_do *state_of(struct sock *sk)
{
	return bpf_sk_storage_get(&tcp_do_state, sk, 0, 0);
}

static __always_inline __u32 history_size(void)
{
	return tcplab_max(tcplab_min(param_rtt_history, (__u32)MAX_HISTORY), 1U);
}

/* Algorithm 1, lines 2-5 and 9: count an oscillation, keep the RTT history. */
static __always_inline void observe_rtt(struct tcp_do *s, __u32 rtt)
{
	__u32 size = history_size(), next = s->next;

	if (s->last_rtt_us) {
		__u32 diff = rtt > s->last_rtt_us ? rtt - s->last_rtt_us : s->last_rtt_us - rtt;

		if (diff > param_oscillation_delta_us)
			s->oscillations++;
	}
	s->last_rtt_us = rtt;
	if (!s->min_rtt_us || rtt < s->min_rtt_us)
		s->min_rtt_us = rtt;
	if (next >= size || next >= MAX_HISTORY)
		next = 0;
	if (s->len < size) {
		s->len++;
		s->weighted_sum += (__u64)s->len * rtt;
		s->sum += rtt;
	} else {
		/* Every weight drops by one (the oldest to zero), the newest comes in at len. */
		s->weighted_sum = s->weighted_sum - s->sum + (__u64)size * rtt;
		s->sum = s->sum - s->history[next] + rtt;
	}
	s->history[next] = rtt;
	s->next = next + 1 >= size ? 0 : next + 1;
}

/* The weighted average above min RTT x (1 + rtt_rise). */
static __always_inline bool queueing(struct tcp_do *s)
{
	__u64 weights = (__u64)s->len * (s->len + 1) / 2;

	if (!s->len || !s->min_rtt_us)
		return false;
	return s->weighted_sum * 1000 > (__u64)s->min_rtt_us * (1000 + param_rtt_rise_milli) * weights;
}

static __always_inline void clamp_threshold(struct tcp_do *s)
{
	s->threshold = tcplab_max(s->threshold, param_initial_threshold_micro / 2);
	s->threshold = tcplab_min(s->threshold, param_initial_threshold_micro * 4);
}

/* Algorithm 1, lines 6-12, at the end of a window. */
static __always_inline void close_window(struct sock *sk, struct tcp_do *s, __u64 elapsed_us)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 frequency = s->oscillations * 1000 * MICRO / tcplab_max(elapsed_us, 1ULL);
	__u64 threshold = tcplab_max(s->threshold, 1ULL);

	frequency = tcplab_min(frequency, MAX_FREQUENCY);
	s->oscillations = 0;
	s->congested = frequency > s->threshold && queueing(s);
	if (s->congested) {
		__u64 severity = frequency * MICRO / threshold;
		__u64 factor = severity / 10 >= MICRO - MIN_REDUCTION ? MIN_REDUCTION : MICRO - severity / 10;
		__u32 reduced = tcplab_max((__u32)((__u64)tp->snd_cwnd * factor / MICRO), 2U);

		tp->snd_cwnd = reduced;
		tp->snd_ssthresh = reduced;
		s->fraction = 0;
		s->pending_severity = tcplab_max(s->pending_severity, severity);
		TCPLAB_EVENT(sk, "tcpdo_reduction", reduced);
	} else {
		if (s->pending_severity) {
			__u64 factor = tcplab_min(MICRO + s->pending_severity / 5, MAX_RECOVERY);

			s->threshold = s->threshold * factor / MICRO;
			s->pending_severity = 0;
		}
		s->threshold = s->threshold * param_calm_threshold_factor_micro / MICRO;
		if (param_calm_increase_per == 1)
			tp->snd_cwnd = tcplab_min(tp->snd_cwnd + param_calm_increase, tp->snd_cwnd_clamp);
	}
	clamp_threshold(s);
}

SEC("struct_ops")
void BPF_PROG(tcp_do_init, struct sock *sk)
{
	struct tcp_do *s = bpf_sk_storage_get(&tcp_do_state, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (!s)
		return;
	s->window_start_us = 0;
	s->oscillations = 0;
	s->threshold = param_initial_threshold_micro;
	s->pending_severity = 0;
	s->fraction = 0;
	s->sum = 0;
	s->weighted_sum = 0;
	s->last_rtt_us = 0;
	s->min_rtt_us = 0;
	s->len = 0;
	s->next = 0;
	s->congested = 0;
}

SEC("struct_ops")
void BPF_PROG(tcp_do_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_do *s = state_of(sk);
	__u64 now = tp->tcp_mstamp;
	__u8 ca_state;

	if (!s)
		return;
	if (sample->rtt_us >= 0)
		observe_rtt(s, sample->rtt_us ? sample->rtt_us : 1);
	if (!s->window_start_us)
		s->window_start_us = now ? now : 1;
	if (now - s->window_start_us < param_window_us)
		return;
	ca_state = inet_csk(sk)->icsk_ca_state;
	if (ca_state == TCP_CA_Recovery || ca_state == TCP_CA_CWR)
		s->oscillations = 0;
	else
		close_window(sk, s, now - s->window_start_us);
	s->window_start_us = now;
}

SEC("struct_ops")
void BPF_PROG(tcp_do_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_do *s = state_of(sk);
	__u64 cwnd;

	if (!s || !acked)
		return;
	/* RFC 5681, L = 1: one segment per ACK in slow start, 1/cwnd in avoidance. */
	if (tcplab_in_slow_start(tp))
		tp->snd_cwnd = tcplab_min(tp->snd_cwnd + 1, tcplab_max(tp->snd_ssthresh, tp->snd_cwnd));
	else
		s->fraction += (1ULL << FRACTION_SHIFT) / tcplab_max(tp->snd_cwnd, 1U);
	if (param_calm_increase_per == 0 && !s->congested)
		s->fraction += ((__u64)param_calm_increase * acked << FRACTION_SHIFT) / tcplab_max(tp->snd_cwnd, 1U);
	cwnd = (__u64)tp->snd_cwnd + (s->fraction >> FRACTION_SHIFT);
	s->fraction &= (1ULL << FRACTION_SHIFT) - 1;
	tp->snd_cwnd = tcplab_min(cwnd, (__u64)tp->snd_cwnd_clamp);
}

SEC("struct_ops")
__u32 BPF_PROG(tcp_do_ssthresh, struct sock *sk)
{
	struct tcp_do *s = state_of(sk);

	if (s)
		s->fraction = 0;
	return tcplab_max(tcplab_packets_in_flight(tcp_sk(sk)) >> 1, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(tcp_do_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_tcp_do = {
	.init = (void *)tcp_do_init,
	.ssthresh = (void *)tcp_do_ssthresh,
	.cong_avoid = (void *)tcp_do_cong_avoid,
	.pkts_acked = (void *)tcp_do_pkts_acked,
	.undo_cwnd = (void *)tcp_do_undo_cwnd,
	.name = "tcplab_tcp_do",
};
