/* tcplab_scalable: tcplab's `scalable` (crates/tcplab-core/src/cc/scalable.rs, docs/algorithms/
 * scalable.md) as a kernel congestion control: Scalable TCP (Kelly, "Scalable TCP: improving
 * performance in highspeed wide area networks", CCR 2003) with the rules the simulator takes from
 * Linux.
 *
 * - Slow start: Reno's (cwnd += acknowledged segments up to ssthresh); the segments left over
 *   when cwnd reaches ssthresh go on to congestion avoidance.
 * - Congestion avoidance: one segment per min(cwnd, ai_count) acknowledged segments (a = 0.01
 *   per ACK above 100 segments, Reno below).
 * - On loss or ECN: ssthresh = max(cwnd - cwnd >> md_shift, 2) segments (b = 1/8).
 *
 * Where the kernel differs from the simulator's inputs: both count whole segments, and the
 * kernel's `acked` (cong_avoid) is, as the simulator's acked_segments, the segments newly
 * delivered by this ACK, cumulatively or by SACK (tcp_input.c tcp_cong_control passes
 * acked_sacked). The kernel calls cong_avoid only when the ACK may raise cwnd (in-order
 * delivery, not in CWR/Recovery/Loss reduction: tcp_may_raise_cwnd, tcp_in_cwnd_reduction), the
 * simulator's may_raise_cwnd. The recovery itself (SACK, PRR, RACK) is the kernel's; at its end
 * the kernel sets cwnd = ssthresh (tcp_end_cwnd_reduction), as the simulator's
 * on_recovery_exit. Every simulator parameter is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, ai_count, 100);
TCPLAB_PARAM(__u32, md_shift, 3);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

SEC("struct_ops")
__u32 BPF_PROG(scalable_ssthresh, struct sock *sk)
{
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	/* The simulator checks md_shift in 1..=8; a shift of 32 or more would be undefined. */
	return tcplab_max(cwnd - (cwnd >> (param_md_shift & 31)), 2U);
}

SEC("struct_ops")
void BPF_PROG(scalable_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	tcplab_additive_increase(tp, tcplab_min(tp->snd_cwnd, param_ai_count), acked);
}

SEC("struct_ops")
__u32 BPF_PROG(scalable_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_scalable = {
	.ssthresh = (void *)scalable_ssthresh,
	.cong_avoid = (void *)scalable_cong_avoid,
	.undo_cwnd = (void *)scalable_undo_cwnd,
	.name = "tcplab_scalable",
};
