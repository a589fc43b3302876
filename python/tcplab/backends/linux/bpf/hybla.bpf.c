/* tcplab_hybla: tcplab's `hybla` (crates/tcplab-core/src/cc/hybla.rs, docs/algorithms/hybla.md)
 * as a kernel congestion control: TCP Hybla (Caini and Firrincieli, "TCP Hybla: a TCP
 * enhancement for heterogeneous networks", International Journal of Satellite Communications and
 * Networking, 2004) with the rules the simulator takes from Linux.
 *
 * - rho = max(RTT / rtt0, 1), RTT the smallest smoothed RTT seen; recomputed whenever it falls.
 * - Per ACK that may raise cwnd, in slow start: cwnd += 2^min(rho, 16) - 1 segments, not past
 *   ssthresh; in congestion avoidance: cwnd += rho^2 / cwnd (once per ACK, or once per
 *   acknowledged segment with count_acked_segments). Fractions of a segment accumulate. cwnd is
 *   at most 65535 segments. Loss reaction is Reno's (ssthresh = max(cwnd / 2, 2)), and clears the
 *   fraction.
 *
 * Fixed point (BPF has no floating point): rho, the per-ACK step and the accumulated fraction
 * have 16 fractional bits (the simulator: f64; Linux: 3 bits). rho = 1.52 (38 ms over 25 ms)
 * becomes 1.51999, and 2^rho - 1 = 1.86787 (f64: 1.86789). 2^x is a product of 2^(2^-k) factors
 * kept with 30 fractional bits. rho^2 (32 fractional bits) fits in u64 while rho < 2^16, that is
 * for any RTT below 65 s at the smallest rtt0 the simulator allows (1 ms).
 *
 * Where the kernel differs from the simulator's inputs:
 * - RTT: tcp_sock.srtt_us, the kernel's smoothed RTT in microseconds times 8 (tcp_input.c
 *   tcp_rtt_estimator), read at every ACK in pkts_acked (which runs after the kernel updated it
 *   for that ACK and before cong_avoid); the simulator's AckEvent.srtt is its own RFC 6298 SRTT
 *   in nanoseconds. rho = srtt_us x 2^13 / rtt0_us (that is srtt / 8 x 2^16 / rtt0).
 * - The kernel's SRTT starts from the handshake's sample (the SYN-ACK), which the simulator's
 *   does too only if its sender takes one; both then follow the data ACKs.
 * - cong_avoid's `acked` is the segments delivered by this ACK (cumulatively or by SACK), as
 *   the simulator's acked_segments; the kernel calls it only when the ACK may raise cwnd (the
 *   simulator's may_raise_cwnd). The kernel's receiver acknowledges every other segment (delayed
 *   ACKs) as the simulator's `linux` profile does; Hybla's growth is per ACK in both.
 * - The 65535-segment limit is applied here (Linux's module lowers snd_cwnd_clamp, which a BPF
 *   congestion control may not write); the kernel's own snd_cwnd_clamp applies too.
 * - The recovery itself (SACK, PRR, RACK) is the kernel's; at its end the kernel sets
 *   cwnd = ssthresh (tcp_end_cwnd_reduction), as the simulator's on_recovery_exit.
 * - The initial window is the connection's (the simulator's choice; Linux's module sets it to
 *   rho).
 * Every simulator parameter is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, rtt0_us, 25000);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);
TCPLAB_PARAM(__u32, count_acked_segments, 0);

#define HYBLA_ONE (1ULL << 16)
/* Linux's clamps, as the simulator's: the slow-start exponent and cwnd. */
#define HYBLA_MAX_EXPONENT 16
#define HYBLA_CWND_CLAMP 65535U

struct hybla {
	__u64 rho;        /* 16 fractional bits */
	__u64 fraction;   /* accumulated part of a segment, 16 fractional bits */
	__u32 min_srtt;   /* smallest tcp_sock.srtt_us seen (microseconds x 8); 0: none yet */
};

SEC("struct_ops")
void BPF_PROG(hybla_init, struct sock *sk)
{
	struct hybla *ca = TCPLAB_STATE(struct hybla, sk);

	ca->rho = HYBLA_ONE;
	ca->fraction = 0;
	ca->min_srtt = 0;
}

SEC("struct_ops")
void BPF_PROG(hybla_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct hybla *ca = TCPLAB_STATE(struct hybla, sk);
	__u32 srtt = tcp_sk(sk)->srtt_us;
	__u64 rtt0 = param_rtt0_us ? param_rtt0_us : 1;
	__u64 rho;

	if (srtt == 0 || (ca->min_srtt != 0 && srtt >= ca->min_srtt))
		return;
	ca->min_srtt = srtt;
	rho = ((__u64)srtt << 13) / rtt0;
	ca->rho = tcplab_max(rho, HYBLA_ONE);
}

SEC("struct_ops")
void BPF_PROG(hybla_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hybla *ca = TCPLAB_STATE(struct hybla, sk);
	bool slow_start = tcplab_in_slow_start(tp);
	__u32 limit = tcplab_min(HYBLA_CWND_CLAMP, tp->snd_cwnd_clamp);
	__u64 step, whole, cwnd;

	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (slow_start) {
		step = tcplab_exp2_q16(tcplab_min(ca->rho, (__u64)HYBLA_MAX_EXPONENT << 16)) - HYBLA_ONE;
	} else {
		/* rho^2 / cwnd, rho^2 with 32 fractional bits brought back to 16. */
		step = ((ca->rho * ca->rho) >> 16) / (tp->snd_cwnd ? tp->snd_cwnd : 1);
		if (param_count_acked_segments)
			step *= acked;
	}
	ca->fraction += step;
	whole = ca->fraction >> 16;
	ca->fraction &= HYBLA_ONE - 1;
	cwnd = tcplab_min((__u64)tp->snd_cwnd + whole, (__u64)limit);
	if (slow_start && cwnd > tp->snd_ssthresh) {
		cwnd = tp->snd_ssthresh;
		ca->fraction = 0;
	}
	tp->snd_cwnd = cwnd;
}

SEC("struct_ops")
__u32 BPF_PROG(hybla_ssthresh, struct sock *sk)
{
	TCPLAB_STATE(struct hybla, sk)->fraction = 0;
	return tcplab_max(tcp_sk(sk)->snd_cwnd >> 1, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(hybla_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_hybla = {
	.init = (void *)hybla_init,
	.pkts_acked = (void *)hybla_pkts_acked,
	.cong_avoid = (void *)hybla_cong_avoid,
	.ssthresh = (void *)hybla_ssthresh,
	.undo_cwnd = (void *)hybla_undo_cwnd,
	.name = "tcplab_hybla",
};
