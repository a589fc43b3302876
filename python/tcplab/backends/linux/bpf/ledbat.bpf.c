/* tcplab_ledbat: tcplab's `ledbat` (crates/tcplab-core/src/cc/ledbat.rs, docs/algorithms/
 * ledbat.md) as a kernel congestion control: LEDBAT (RFC 6817) with ns-3 3.44's choices where the
 * RFC is open, as the simulator's file makes them.
 *
 * - Per ACK in congestion avoidance: queuing_delay = min(last current_filter delays) - min(base
 *   delays), off_target = (target - queuing_delay) / target, cwnd += gain * off_target *
 *   acked_segments / cwnd segments; then cwnd <= flight before the ACK + allowed_increase and
 *   cwnd >= min_cwnd (RFC 6817 section 2.4.2).
 * - Base delays: one minimum per minute (a sample in a new minute of CLOCK_MONOTONIC time opens a
 *   bucket and the oldest of base_history is forgotten).
 * - Slow start (ns-3's SSParam, `slow_start`): the acknowledged segments per ACK up to ssthresh, at
 *   the start and again after a timeout.
 * - A loss or ECN-Echo: ssthresh = max(min(cwnd, max(cwnd / 2, min_cwnd)), 2); a timeout leaves
 *   one segment (the kernel's loss window). Undo: the window before the reduction.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - The one-way delay. The simulator's AckEvent::one_way_delay is the echoed segment's arrival at
 *   the receiver minus its send time, on one clock, in nanoseconds, without the receiver's ACK
 *   delay. The kernel has only the ACK's TCP timestamps: tp->rx_opt.rcv_tsval (the receiver's
 *   clock when it sent the ACK) minus tp->rx_opt.rcv_tsecr (the echo of our clock when the echoed
 *   segment left), as ns-3's TcpLedbat reads them. That difference also counts the time the
 *   receiver held a delayed ACK, comes in the timestamp clock's ticks (1 ms in Linux, 1 us when
 *   the connection negotiated microsecond timestamps, tp->tcp_usec_ts), and carries an unknown
 *   constant: each end adds its own random offset (tsoffset) to its timestamps. Only differences
 *   of delays are used here (current - base), so the constant cancels; the samples are kept as
 *   u32 ticks relative to the first one, which keeps them clear of the 2^32 wrap.
 * - Samples are taken on every ACK that carries a timestamp (in_ack_event), as the simulator
 *   samples every ACK with a one_way_delay.
 * - Windows are whole segments in snd_cwnd; the fractional window is kept here in 1/65536 of a
 *   segment (the simulator keeps fractional bytes) and snd_cwnd is its integer part. When the
 *   kernel changes snd_cwnd itself (PRR in recovery, the loss window, undo), the fraction
 *   restarts from the kernel's value.
 * - The flight before the ACK is tcp_packets_in_flight after it plus the segments it acknowledged
 *   or SACKed (cong_avoid's `acked`), or snd_cwnd when the kernel counts the flow as
 *   cwnd-limited: the kernel defers sending the last segment or two of a window (TSO sizing, TCP
 *   small queues), so the flight just before an ACK sits a segment or two below a window the
 *   flow fills, and the RFC's cap (cwnd <= flight + ALLOWED_INCREASE) then took a segment off
 *   cwnd at every ACK (seen with bpf_printk: two flows on 8 BDP drained the queue from 300 ms
 *   to below TARGET within a second, one segment per ACK, while the delay rule asked for about
 *   -2 segments per RTT). The simulator's sender refills the window at each ACK.
 * - Recovery is the kernel's (SACK, PRR, RACK): it lowers cwnd to ssthresh over the recovery round,
 *   where the simulator sets cwnd = ssthresh at once.
 *
 * All simulator parameters are exposed; base_history and current_filter keep up to 1000 entries
 * each (their whole range) in a socket-storage map. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u64, target_us, 100000);
TCPLAB_PARAM(__u32, gain_milli, 1000);
TCPLAB_PARAM(__u32, base_history, 10);
TCPLAB_PARAM(__u32, current_filter, 4);
TCPLAB_PARAM(__u32, allowed_increase, 1);
TCPLAB_PARAM(__u32, min_cwnd, 2);
TCPLAB_PARAM(__u32, slow_start, 1);

#define LEDBAT_MAX_LIST 1000
#define FRAC_SHIFT 16
#define NO_SAMPLE 0xffffffffU
#define MINUTE_NS (60ULL * 1000000000ULL)

struct ledbat_delays {
	__u32 base[LEDBAT_MAX_LIST];	/* one minimum per minute, a ring; 0 when empty */
	__u32 current[LEDBAT_MAX_LIST]; /* the latest samples, a ring */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ledbat_delays);
} ledbat_delays SEC(".maps");

struct ledbat {
	__u64 cwnd_fp;	   /* cwnd in 1/65536 segments */
	__u64 last_bucket; /* minute of CLOCK_MONOTONIC of the newest base bucket, +1 (0: none) */
	__u32 base_head;   /* index of the newest base bucket */
	__u32 current_head;
	__u32 anchor;	   /* the first raw TSval - TSecr, in ticks */
	__u32 has_anchor;
	__u32 slow_starting;
	__u32 storage_ok;
};

static __always_inline __u32 list_len(__u32 n)
{
	return n < 1 ? 1 : (n > LEDBAT_MAX_LIST ? LEDBAT_MAX_LIST : n);
}

SEC("struct_ops")
void BPF_PROG(ledbat_init, struct sock *sk)
{
	struct ledbat *ca = TCPLAB_STATE(struct ledbat, sk);
	struct ledbat_delays *d;

	ca->cwnd_fp = (__u64)tcp_sk(sk)->snd_cwnd << FRAC_SHIFT;
	ca->last_bucket = 0;
	ca->base_head = 0;
	ca->current_head = 0;
	ca->has_anchor = 0;
	ca->anchor = 0;
	ca->slow_starting = param_slow_start ? 1 : 0;
	ca->storage_ok = 0;
	/* The storage starts zeroed: 0 marks an empty entry (samples lie near 2^30). */
	d = bpf_sk_storage_get(&ledbat_delays, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!d)
		return;
	ca->storage_ok = 1;
}

/* The delay sample of this ACK, in timestamp ticks relative to the first sample (offset by 2^30
 * so that both signs stay far from the wrap). Returns NO_SAMPLE without timestamps. */
static __always_inline __u32 ledbat_sample(struct sock *sk, struct ledbat *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 raw;

	if (!tp->rx_opt.saw_tstamp || !tp->rx_opt.rcv_tsecr)
		return NO_SAMPLE;
	raw = tp->rx_opt.rcv_tsval - tp->rx_opt.rcv_tsecr;
	if (!ca->has_anchor) {
		ca->anchor = raw;
		ca->has_anchor = 1;
	}
	return raw - ca->anchor + (1U << 30);
}

SEC("struct_ops")
void BPF_PROG(ledbat_in_ack_event, struct sock *sk, __u32 flags)
{
	struct ledbat *ca = TCPLAB_STATE(struct ledbat, sk);
	struct ledbat_delays *d;
	__u32 sample, n, head;
	__u64 bucket;

	if (!ca->storage_ok)
		return;
	sample = ledbat_sample(sk, ca);
	if (sample == NO_SAMPLE)
		return;
	d = bpf_sk_storage_get(&ledbat_delays, sk, 0, 0);
	if (!d)
		return;
	/* update_base_delay: a new minute opens a bucket (the ring's oldest), else lower the newest. */
	n = list_len(param_base_history);
	bucket = bpf_ktime_get_ns() / MINUTE_NS + 1;
	head = ca->base_head;
	if (ca->last_bucket != bucket) {
		ca->last_bucket = bucket;
		head = head + 1 >= n ? 0 : head + 1;
		ca->base_head = head;
		if (head < LEDBAT_MAX_LIST)
			d->base[head] = sample;
	} else if (head < LEDBAT_MAX_LIST && (d->base[head] == 0 || sample < d->base[head])) {
		d->base[head] = sample;
	}
	/* update_current_delay: the ring of the latest samples. */
	n = list_len(param_current_filter);
	head = ca->current_head + 1 >= n ? 0 : ca->current_head + 1;
	ca->current_head = head;
	if (head < LEDBAT_MAX_LIST)
		d->current[head] = sample;
}

/* Queueing delay in microseconds; returns 0 and sets *ok = 0 before the first sample. */
static __always_inline __u64 ledbat_queuing_delay_us(struct sock *sk, struct ledbat *ca, int *ok)
{
	struct ledbat_delays *d;
	__u32 base = NO_SAMPLE, current = NO_SAMPLE;
	__u32 nb = list_len(param_base_history), nc = list_len(param_current_filter);
	__u64 tick_us = tcp_sk(sk)->tcp_usec_ts ? 1 : USEC_PER_MSEC;

	*ok = 0;
	if (!ca->storage_ok)
		return 0;
	d = bpf_sk_storage_get(&ledbat_delays, sk, 0, 0);
	if (!d)
		return 0;
	for (int i = 0; i < LEDBAT_MAX_LIST; i++) {
		if (i >= nb)
			break;
		if (d->base[i] && d->base[i] < base)
			base = d->base[i];
	}
	for (int i = 0; i < LEDBAT_MAX_LIST; i++) {
		if (i >= nc)
			break;
		if (d->current[i] && d->current[i] < current)
			current = d->current[i];
	}
	if (base == NO_SAMPLE || current == NO_SAMPLE)
		return 0;
	*ok = 1;
	return current > base ? (__u64)(current - base) * tick_us : 0;
}

static __always_inline void ledbat_set_cwnd(struct tcp_sock *tp, struct ledbat *ca, __u64 fp)
{
	__u64 clamp = (__u64)tp->snd_cwnd_clamp << FRAC_SHIFT;
	__u64 floor = (__u64)(param_min_cwnd ? param_min_cwnd : 1) << FRAC_SHIFT;

	if (fp > clamp)
		fp = clamp;
	if (fp < floor)
		fp = floor;
	ca->cwnd_fp = fp;
	tp->snd_cwnd = (__u32)(fp >> FRAC_SHIFT);
}

SEC("struct_ops")
void BPF_PROG(ledbat_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ledbat *ca = TCPLAB_STATE(struct ledbat, sk);
	__u64 cwnd_fp, step, flight_before, cap, target;
	__u64 qd_us, num;
	int ok, up;

	if (!acked)
		return;
	/* The kernel set snd_cwnd itself since the last ACK (recovery, loss window, undo). */
	if ((ca->cwnd_fp >> FRAC_SHIFT) != tp->snd_cwnd)
		ca->cwnd_fp = (__u64)tp->snd_cwnd << FRAC_SHIFT;
	if (ca->slow_starting) {
		tcplab_slow_start(tp, acked);
		ca->cwnd_fp = (__u64)tp->snd_cwnd << FRAC_SHIFT;
		if (tp->snd_cwnd >= tp->snd_ssthresh)
			ca->slow_starting = 0;
		return;
	}
	/* off_target = (target - qd) / target, 1 without samples. */
	target = param_target_us ? param_target_us : 1;
	qd_us = ledbat_queuing_delay_us(sk, ca, &ok);
	if (!ok) {
		up = 1;
		num = target;
	} else if (qd_us <= target) {
		up = 1;
		num = target - qd_us;
	} else {
		up = 0;
		num = qd_us - target;
	}
	if (num > (1ULL << 30))
		num = 1ULL << 30;
	cwnd_fp = ca->cwnd_fp ? ca->cwnd_fp : 1;
	/* step = gain * off_target * acked / cwnd segments, in 1/65536: gain_milli * acked * 2^32 /
	 * (1000 cwnd_fp) is at most ~1e4 * acked / cwnd * 2^16 (< 2^34 for acked <= 8 cwnd), times
	 * num < 2^30 stays below 2^64. */
	step = ((__u64)param_gain_milli * acked << FRAC_SHIFT) / 1000;
	step = (step << FRAC_SHIFT) / cwnd_fp;
	if (step > (1ULL << 33))
		step = 1ULL << 33;
	step = step * num / target;
	if (up)
		cwnd_fp += step;
	else
		cwnd_fp = cwnd_fp > step ? cwnd_fp - step : 0;
	/* The flight before this ACK. The kernel does not always fill the window to the last
	 * segment (it defers a send of one or two segments to build a larger TSO frame, and TCP
	 * small queues hold transmissions back), so right before an ACK the flight of a flow that
	 * uses its whole window is often a segment or two short of it; the RFC's cap would then
	 * take that segment off the window at every ACK. When the kernel counts the flow as
	 * cwnd-limited (tp->is_cwnd_limited, set when it stopped sending because of cwnd) the
	 * window counts as the flight. */
	flight_before = (__u64)tcplab_packets_in_flight(tp) + acked;
	if (tcplab_is_cwnd_limited(tp))
		flight_before = tcplab_max(flight_before, (__u64)tp->snd_cwnd);
	cap = (flight_before + param_allowed_increase) << FRAC_SHIFT;
	if (cwnd_fp > cap)
		cwnd_fp = cap;
	ledbat_set_cwnd(tp, ca, cwnd_fp);
}

SEC("struct_ops")
__u32 BPF_PROG(ledbat_ssthresh, struct sock *sk)
{
	struct ledbat *ca = TCPLAB_STATE(struct ledbat, sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;
	__u32 halved = tcplab_min(cwnd, tcplab_max(cwnd >> 1, param_min_cwnd));

	/* A loss or ECN-Echo ends slow start; a timeout restarts it (CA_EVENT_LOSS below). */
	ca->slow_starting = 0;
	return tcplab_max(halved, 2U);
}

SEC("struct_ops")
void BPF_PROG(ledbat_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct ledbat *ca = TCPLAB_STATE(struct ledbat, sk);

	if (ev == CA_EVENT_LOSS)
		ca->slow_starting = param_slow_start ? 1 : 0;
}

SEC("struct_ops")
__u32 BPF_PROG(ledbat_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_ledbat = {
	.init = (void *)ledbat_init,
	.ssthresh = (void *)ledbat_ssthresh,
	.cong_avoid = (void *)ledbat_cong_avoid,
	.in_ack_event = (void *)ledbat_in_ack_event,
	.cwnd_event = (void *)ledbat_cwnd_event,
	.undo_cwnd = (void *)ledbat_undo_cwnd,
	.name = "tcplab_ledbat",
};
