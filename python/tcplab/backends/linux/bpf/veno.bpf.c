/* tcplab_veno: tcplab's `veno` (crates/tcplab-core/src/cc/veno.rs, docs/algorithms/veno.md) as a
 * kernel congestion control: TCP Veno (Fu and Liew, "TCP Veno: TCP enhancement for transmission
 * over wireless access networks", IEEE JSAC 2003) with the rules the simulator takes from Linux.
 *
 * - The backlog N = cwnd (rtt - baseRTT) / rtt, in half segments, with rtt this ACK's RTT sample
 *   and baseRTT the smallest sample ever.
 * - N below beta segments (the path is taken as uncongested): Reno growth, and a loss is taken as
 *   random: ssthresh = cwnd x 4/5. N at or above beta: one segment every other window of
 *   acknowledged segments, and a loss halves cwnd. ssthresh is at least 2.
 * - With two RTT samples or fewer since the connection began, or an ACK without a sample: Reno.
 *
 * Where the kernel differs from the simulator's inputs:
 * - RTT samples: the kernel's pkts_acked gives, per ACK, ack_sample.rtt_us (negative when the
 *   ACK gives none; from the most recently sent segment it acknowledges, never a retransmitted
 *   one: tcp_input.c tcp_clean_rtx_queue), in microseconds where the simulator's sample is in
 *   nanoseconds. pkts_acked runs before cong_avoid for the same ACK (tcp_ack), so the file keeps
 *   the sample pkts_acked saw and cong_avoid uses and clears it, the simulator's "smallest sample
 *   since the previous ACK". The sample count and baseRTT are updated on every ACK, as the
 *   simulator's, whether or not the ACK may raise cwnd.
 * - cong_avoid's `acked` is the segments delivered by this ACK, cumulatively or by SACK, as the
 *   simulator's acked_segments; the kernel calls it only when the ACK may raise cwnd (the
 *   simulator's may_raise_cwnd).
 * - The recovery itself (SACK, PRR, RACK) is the kernel's; at its end the kernel sets
 *   cwnd = ssthresh (tcp_end_cwnd_reduction), as the simulator's on_recovery_exit.
 * Every simulator parameter is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, beta, 3);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

struct veno {
	__u32 base_rtt_us;    /* smallest RTT sample so far; 0 before the first */
	__u32 ack_rtt_us;     /* this ACK's sample (from pkts_acked); 0 for none */
	__u32 samples;        /* RTT samples so far (saturating) */
	__u32 increase_next;  /* congestive state: the next full window adds a segment */
	__u64 backlog_halves; /* N in half segments, from the last estimate */
};

SEC("struct_ops")
void BPF_PROG(veno_init, struct sock *sk)
{
	struct veno *ca = TCPLAB_STATE(struct veno, sk);

	ca->base_rtt_us = 0;
	ca->ack_rtt_us = 0;
	ca->samples = 0;
	ca->increase_next = 1;
	ca->backlog_halves = 0;
}

static __always_inline bool veno_congestive(const struct veno *ca)
{
	return ca->backlog_halves >= ((__u64)param_beta << 1);
}

SEC("struct_ops")
void BPF_PROG(veno_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct veno *ca = TCPLAB_STATE(struct veno, sk);
	__s32 rtt = sample->rtt_us;

	if (rtt <= 0) {
		ca->ack_rtt_us = 0;
		return;
	}
	ca->ack_rtt_us = rtt;
	if (ca->base_rtt_us == 0 || (__u32)rtt < ca->base_rtt_us)
		ca->base_rtt_us = rtt;
	if (ca->samples < 0xffffffffU)
		ca->samples++;
}

/* Reno: slow start up to ssthresh, then one segment per cwnd acknowledged segments. */
static __always_inline void veno_reno_increase(struct tcp_sock *tp, __u32 acked)
{
	if (tcplab_in_slow_start(tp)) {
		acked = tcplab_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcplab_additive_increase(tp, tp->snd_cwnd, acked);
}

SEC("struct_ops")
void BPF_PROG(veno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct veno *ca = TCPLAB_STATE(struct veno, sk);
	__u32 rtt = ca->ack_rtt_us;
	__u64 cwnd2;
	__u32 cwnd;

	ca->ack_rtt_us = 0;
	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (rtt == 0 || ca->base_rtt_us == 0 || ca->samples <= 2) {
		veno_reno_increase(tp, acked);
		return;
	}
	/* N = 2 cwnd - 2 cwnd x baseRTT / rtt (baseRTT <= rtt: it includes this sample). */
	cwnd2 = (__u64)tp->snd_cwnd << 1;
	ca->backlog_halves = cwnd2 - cwnd2 * ca->base_rtt_us / rtt;

	if (tcplab_in_slow_start(tp)) {
		acked = tcplab_slow_start(tp, acked);
		if (!acked)
			return;
	}
	cwnd = tp->snd_cwnd;
	if (!veno_congestive(ca)) {
		tcplab_additive_increase(tp, cwnd, acked);
	} else if (tp->snd_cwnd_cnt >= cwnd) {
		if (ca->increase_next) {
			if (tp->snd_cwnd < tp->snd_cwnd_clamp)
				tp->snd_cwnd = cwnd + 1;
			ca->increase_next = 0;
		} else {
			ca->increase_next = 1;
		}
		tp->snd_cwnd_cnt = 0;
	} else {
		tp->snd_cwnd_cnt += acked;
	}
	if (tp->snd_cwnd < 2)
		tp->snd_cwnd = 2;
}

SEC("struct_ops")
__u32 BPF_PROG(veno_ssthresh, struct sock *sk)
{
	struct veno *ca = TCPLAB_STATE(struct veno, sk);
	__u64 cwnd = tcp_sk(sk)->snd_cwnd;
	__u64 ssthresh = veno_congestive(ca) ? cwnd / 2 : cwnd * 4 / 5;

	return tcplab_max((__u32)ssthresh, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(veno_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_veno = {
	.init = (void *)veno_init,
	.pkts_acked = (void *)veno_pkts_acked,
	.cong_avoid = (void *)veno_cong_avoid,
	.ssthresh = (void *)veno_ssthresh,
	.undo_cwnd = (void *)veno_undo_cwnd,
	.name = "tcplab_veno",
};
