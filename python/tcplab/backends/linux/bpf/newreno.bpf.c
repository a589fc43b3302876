/* tcplab_newreno: tcplab's `newreno` (crates/tcplab-core/src/cc/newreno.rs, docs/algorithms/
 * newreno.md) as a kernel congestion control: the window rules of RFC 5681 as ns-2's NewReno
 * applied them.
 *
 * - Slow start: cwnd grows by min(acknowledged segments, abc_limit) per ACK (RFC 5681 section
 *   3.1, RFC 3465's L; L = 1 is ns-2's growth of one segment per ACK).
 * - Congestion avoidance: one segment per cwnd ACKs, RFC 5681 equation 3 (SMSS * SMSS / cwnd
 *   bytes per ACK) counted in whole segments.
 * - On loss or ECN: ssthresh = max(FlightSize / 2, 2) segments (RFC 5681 equation 4).
 *
 * Where the kernel differs from the simulator's inputs: windows are whole segments, so the
 * byte-exact growth of the simulator becomes a count of ACKs in snd_cwnd_cnt; FlightSize is the
 * kernel's tcp_packets_in_flight when the reduction starts; the recovery itself (SACK, PRR,
 * RACK) is the kernel's, not ns-2's NewReno. `reduction = "ns2_slowdown"` has no kernel form
 * (the kernel, not the algorithm, sets cwnd during an ECN reduction) and is refused. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, abc_limit, 1);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 0);

SEC("struct_ops")
__u32 BPF_PROG(newreno_ssthresh, struct sock *sk)
{
	return tcplab_max(tcplab_packets_in_flight(tcp_sk(sk)) >> 1, 2U);
}

SEC("struct_ops")
void BPF_PROG(newreno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (tcplab_in_slow_start(tp)) {
		tcplab_slow_start(tp, tcplab_min(acked, param_abc_limit));
		return;
	}
	/* One ACK, whatever it acknowledged, is 1/cwnd of a segment. */
	tcplab_additive_increase(tp, tp->snd_cwnd, 1);
}

SEC("struct_ops")
__u32 BPF_PROG(newreno_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_newreno = {
	.ssthresh = (void *)newreno_ssthresh,
	.cong_avoid = (void *)newreno_cong_avoid,
	.undo_cwnd = (void *)newreno_undo_cwnd,
	.name = "tcplab_newreno",
};
