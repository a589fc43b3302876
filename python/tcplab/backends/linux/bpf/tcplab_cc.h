/* What every tcplab congestion control written as a BPF struct_ops shares: kernel types (from
 * vmlinux.h, generated from the running kernel's BTF at build time), socket accessors, the
 * parameters the Linux back-end sets at load time, the events table it reads after a run, and a
 * few window and integer helpers. Written for tcplab; the facts used (struct layouts, the meaning
 * of tcp_sock fields, what each tcp_congestion_ops hook receives) are those of include/net/tcp.h
 * and include/linux/tcp.h in Linux 6.x.
 *
 * Units: the kernel counts windows in segments (snd_cwnd, snd_ssthresh), RTTs in microseconds
 * (ack_sample.rtt_us, rate_sample.rtt_us, srtt_us << 3) and time in microseconds
 * (tcp_sock.tcp_mstamp) or nanoseconds (bpf_ktime_get_ns, CLOCK_MONOTONIC). The simulator gives
 * its algorithms bytes and nanoseconds; each algorithm's file says how it converts. */
#ifndef TCPLAB_CC_H
#define TCPLAB_CC_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

/* The verifier lets a struct_ops program run only under a GPL-compatible license string
 * (kernel/bpf/verifier.c); "Dual MIT/GPL" is one (include/linux/license.h) and states tcplab's
 * own MIT license. */
#define TCPLAB_LICENSE char _license[] SEC("license") = "Dual MIT/GPL"

/* include/net/tcp.h: the ssthresh of a connection that never reduced, and the flag with which an
 * algorithm asks for ECN on every connection (tcp_ca_needs_ecn). */
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#define TCP_CONG_NEEDS_ECN 0x2
#define USEC_PER_SEC 1000000ULL
#define USEC_PER_MSEC 1000ULL
#define NSEC_PER_USEC 1000ULL

#define tcplab_min(a, b) ((a) < (b) ? (a) : (b))
#define tcplab_max(a, b) ((a) > (b) ? (a) : (b))

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

/* An algorithm's per-connection state lives in icsk_ca_priv (13 u64s, 104 bytes, in 6.x);
 * TCPLAB_STATE checks at compile time that the state fits. A larger state needs a
 * BPF_MAP_TYPE_SK_STORAGE map. */
#define TCPLAB_STATE(type, sk)                                                                   \
	({                                                                                         \
		_Static_assert(sizeof(type) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv), \
			       #type " does not fit in icsk_ca_priv");                               \
		(type *)inet_csk(sk)->icsk_ca_priv;                                                \
	})

/* Parameters. The Linux back-end sets every global named param_<name>[_<unit>] in .rodata from
 * the flow's resolved params (the simulator's defaults unless the scenario sets one) before it
 * loads the object, so a sweep over a parameter reaches the kernel too. <name> is the
 * simulator's parameter name and <unit> says how the value is written:
 *   (none)  integers and booleans (0 or 1) as they are, a choice as its index in the
 *           simulator's list of allowed names;
 *   _us     a duration in microseconds;
 *   _milli  a number times 1000, rounded;
 *   _micro  a number times 1,000,000, rounded.
 * A parameter the simulator has and the BPF file does not declare keeps the behaviour the file
 * documents; a scenario that sets it is refused on the Linux back-end. The value written here
 * is a placeholder the loader replaces, and equals the simulator's default so that the object
 * also works when registered by hand with bpftool. */
#define TCPLAB_PARAM(type, name, placeholder) const volatile type param_##name = placeholder

/* Events: an algorithm's named moments (a mode switch, its own congestion event), written to
 * this table with CLOCK_MONOTONIC time and the flow's port; the Linux back-end reads the table
 * before it unregisters the algorithm and adds the rows to the run's events table, as the
 * simulator's take_event does. Entries past TCPLAB_MAX_EVENTS are counted and dropped. */
#define TCPLAB_MAX_EVENTS 4096
#define TCPLAB_EVENT_NAME_BYTES 24

struct tcplab_event {
	__u64 time_ns;
	__u32 port;
	__u32 value;
	char name[TCPLAB_EVENT_NAME_BYTES];
};

struct tcplab_events {
	__u32 count;
	__u32 reserved;
	struct tcplab_event at[TCPLAB_MAX_EVENTS];
};

struct tcplab_events tcplab_events SEC(".bss");

/* Reports event NAME (a string literal shorter than TCPLAB_EVENT_NAME_BYTES) with an
 * algorithm-chosen value (the cwnd in segments, unless the file says otherwise). The port is the
 * connection's remote port, which the back-end gives each flow's receiver. */
#define TCPLAB_EVENT(sk, name_, val)                                                         \
	do {                                                                                       \
		_Static_assert(sizeof(name_) <= TCPLAB_EVENT_NAME_BYTES, "event name too long"); \
		__u32 slot_ = __sync_fetch_and_add(&tcplab_events.count, 1);                      \
		if (slot_ < TCPLAB_MAX_EVENTS) {                                                   \
			struct tcplab_event *event_ = &tcplab_events.at[slot_];                    \
			event_->time_ns = bpf_ktime_get_ns();                                      \
			event_->port = bpf_ntohs((sk)->__sk_common.skc_dport);                     \
			event_->value = (val);                                                     \
			__builtin_memcpy(event_->name, name_, sizeof(name_));                      \
		}                                                                                  \
	} while (0)

/* Linux's TCP state a window algorithm reads. */
static __always_inline bool tcplab_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* include/net/tcp.h tcp_packets_in_flight: sent, minus SACKed and lost, plus retransmitted. */
static __always_inline __u32 tcplab_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* Whether the sender filled cwnd lately (tcp_sock.is_cwnd_limited, set by the sender as Linux's
 * tcp_is_cwnd_limited reads it; in slow start Linux also counts a window of at least twice the
 * largest flight as limited). */
static __always_inline bool tcplab_is_cwnd_limited(const struct tcp_sock *tp)
{
	if (tcplab_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return tp->is_cwnd_limited;
}

/* Slow start: cwnd grows by the acknowledged segments up to ssthresh; returns the segments left
 * over for congestion avoidance (RFC 5681 section 3.1 with RFC 3465's byte counting, as Linux). */
static __always_inline __u32 tcplab_slow_start(struct tcp_sock *tp, __u32 acked)
{
	__u32 cwnd = tcplab_min(tp->snd_cwnd + acked, tp->snd_ssthresh);

	acked -= cwnd - tp->snd_cwnd;
	tp->snd_cwnd = tcplab_min(cwnd, tp->snd_cwnd_clamp);
	return acked;
}

/* How a Reno-like cong_avoid opens: no growth when the simulator's freeze_when_not_cwnd_limited
 * is set and the sender did not fill cwnd; otherwise slow start takes what it can of the
 * acknowledged segments. True when congestion avoidance has segments to grow by (*acked then
 * holds them); false when nothing is left to do. */
static __always_inline bool tcplab_slow_start_leaves(struct tcp_sock *tp, __u32 *acked, bool freeze_when_not_cwnd_limited)
{
	if (freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return false;
	if (tcplab_in_slow_start(tp)) {
		*acked = tcplab_slow_start(tp, *acked);
		return *acked != 0;
	}
	return true;
}

/* Additive increase: one segment per w acknowledged segments (w = cwnd is Reno's one segment
 * per RTT), counted in snd_cwnd_cnt as Linux does. */
static __always_inline void tcplab_additive_increase(struct tcp_sock *tp, __u32 w, __u32 acked)
{
	if (w == 0)
		w = 1;
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd++;
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= w) {
		__u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tp->snd_cwnd += delta;
	}
	tp->snd_cwnd = tcplab_min(tp->snd_cwnd, tp->snd_cwnd_clamp);
}

/* The window before the last reduction, for undo_cwnd (prior_cwnd is saved by the kernel when a
 * reduction starts). */
static __always_inline __u32 tcplab_undo_to_prior(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return tcplab_max(tp->snd_cwnd, tp->prior_cwnd);
}

/* floor(log2(x)) for x > 0, and an integer cube root (the largest r with r^3 <= x), for the
 * algorithms whose formulas need them (no floating point in BPF). The log's six branches leave the
 * verifier 64 paths, which it handles. */
static __always_inline __u32 tcplab_ilog2(__u64 x)
{
	__u32 r = 0;

	for (int shift = 32; shift > 0; shift >>= 1) {
		if (x >> shift) {
			x >>= shift;
			r += shift;
		}
	}
	return r;
}

/* round(2^(2^-k) x 2^30) for k = 1 .. 16: the factors of 2^x for each fractional bit of x. */
static const __u32 tcplab_exp2_bit_q30[16] = {
	1518500250, 1276901417, 1170923762, 1121280436, 1097253708, 1085434106,
	1079572136, 1076653033, 1075196443, 1074468888, 1074105294, 1073923544,
	1073832680, 1073787251, 1073764537, 1073753181,
};

/* 2^x for x with 16 fractional bits (x < 47 << 16, so the result fits), with 16 fractional
 * bits: the fraction's factors multiplied in 30-bit fixed point, then the whole part as a
 * shift. */
static __always_inline __u64 tcplab_exp2_q16(__u64 x)
{
	__u64 r = 1ULL << 30;
	__u32 whole = x >> 16;

	for (int k = 0; k < 16; k++)
		if (x & (0x8000 >> k))
			r = (r * tcplab_exp2_bit_q30[k]) >> 30;
	return whole >= 14 ? r << (whole - 14) : r >> (14 - whole);
}

static __always_inline __u64 tcplab_cbrt(__u64 x)
{
	/* Newton's step r = (2 r + x / r^2) / 3 from 2^22, above the root of any u64, falls by about
	 * a third per step while far above the root and then quadratically, and in integers never
	 * below the floor s of the root; from s it may step up to s + 1 (s + 2 when s = 1). After 40
	 * steps r is within s..s + 2, and two corrections (r^3 > x, written r^2 > x / r) give s. No
	 * step branches: a bit-by-bit search (a branch per bit) makes the verifier follow every path
	 * and stop at its million-instruction limit. r^2 <= 2^44 never overflows, and BPF's x / 0 is
	 * 0 (x = 0). */
	__u64 r = 1ULL << 22;

	for (int step = 0; step < 40; step++)
		r = (2 * r + x / (r * r)) / 3;
	r -= r * r > x / r;
	r -= r * r > x / r;
	return r;
}

#endif /* TCPLAB_CC_H */
