/* tcplab_dctcp: tcplab's `dctcp` (crates/tcplab-core/src/cc/dctcp.rs, docs/algorithms/dctcp.md)
 * as a kernel congestion control: Data Center TCP (RFC 8257; Alizadeh et al., SIGCOMM 2010) on
 * Reno growth, in Linux's fixed point.
 *
 * Sender:
 * - alpha in 1024ths, starting at alpha_on_init; once per observation window (it ends when
 *   snd_una reaches the snd_nxt recorded when it began) alpha loses alpha >> shift_g (all of it
 *   when that is 0) and gains (F_ce << (10 - shift_g)) / F_total, capped at 1024.
 * - ssthresh on ECN-Echo: cwnd - (cwnd * alpha >> 11), at least 2 segments.
 * - loss (entering fast recovery, or a timeout): ssthresh = max(cwnd / 2, 2) with
 *   loss_response = halve (RFC 8257 section 3.4); with loss_response = alpha the ECN reduction.
 * - growth: Reno (slow start, then one segment per cwnd acknowledged segments), frozen while not
 *   cwnd-limited when freeze_when_not_cwnd_limited is on. Undo: the window before the reduction.
 *
 * Receiver (RFC 8257 section 3.2; the facts are those of include/net/tcp.h and
 * net/ipv4/tcp_dctcp.h): the kernel reports each arriving data segment's CE state to the
 * receiving socket's congestion control as CA_EVENT_ECN_IS_CE / CA_EVENT_ECN_NO_CE (only when
 * that control has TCP_CONG_NEEDS_ECN). This file keeps the last segment's state and sets or
 * clears TCP_ECN_DEMAND_CWR in tcp_sock.ecn_flags so that every ACK carries ECE exactly while
 * the last data segment was CE (the kernel's ACK writer sets ECE while that bit is set). When the
 * state changes, an ACK delayed for the earlier segments (ICSK_ACK_TIMER pending) is sent first
 * with the old state for rcv_nxt as it was before this segment (bpf_tcp_send_ack), and
 * ICSK_ACK_NOW makes the ACK of this segment leave at once. The RECEIVING socket must therefore
 * run tcplab_dctcp too: the Linux back-end sets the receiver's TCP_CONGESTION to the flow's
 * algorithm for dctcp.
 *
 * Where the kernel's inputs differ from the simulator's:
 * - F is counted from tp->delivered (segments, SACKed ones included) per ACK; the segments an ACK
 *   delivers count as marked when in_ack_event reports CA_ACK_ECE, as the simulator counts
 *   acked_segments of an ACK with ECE.
 * - Order on an ACK: the kernel calls in_ack_event (the alpha update) before it enters CWR and
 *   calls ssthresh; the simulator reduces before the ACK's update (a difference of at most
 *   g |F - alpha|, documented in dctcp.rs).
 * - The reduction: the kernel reaches ssthresh over the CWR round through PRR; the simulator sets
 *   cwnd = ssthresh at once. Recovery from losses is the kernel's (SACK, PRR, RACK).
 *
 * Parameters not exposed: `arithmetic` ("float", ns-3's real numbers, has no BPF form: BPF has no
 * floating point); the default, Linux's 1024ths, is what this file does. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, shift_g, 4);
TCPLAB_PARAM(__u32, alpha_on_init_milli, 1000);
/* loss_response: 0 = "halve" (Linux), 1 = "alpha" (ns-3.44). */
TCPLAB_PARAM(__u32, loss_response, 0);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

/* include/net/tcp.h: the receiver's "echo ECE" bit of ecn_flags; include/net/inet_connection_sock.h:
 * the ACK-scheduling bits of icsk_ack.pending. */
#define TCP_ECN_DEMAND_CWR 4
#define DCTCP_ALPHA_ONE 1024U

struct dctcp {
	__u32 alpha;		/* 1024ths */
	__u32 next_seq;		/* the observation window ends when snd_una reaches this */
	__u32 last_delivered;	/* tp->delivered at the previous ACK */
	__u32 window_delivered; /* segments delivered in this window */
	__u32 window_ce;	/* of those, segments delivered by ACKs with ECE */
	__u32 loss_cwnd;	/* cwnd before the last reduction, for undo */
	/* receiver */
	__u32 prior_rcv_nxt;
	__u32 ce_state;
};

static __always_inline __u32 dctcp_shift(void)
{
	return param_shift_g > 10 ? 10 : param_shift_g;
}

static __always_inline void dctcp_new_window(struct dctcp *ca, const struct tcp_sock *tp)
{
	ca->next_seq = tp->snd_nxt;
	ca->window_delivered = 0;
	ca->window_ce = 0;
}

SEC("struct_ops")
void BPF_PROG(dctcp_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp *ca = TCPLAB_STATE(struct dctcp, sk);
	__u64 alpha = (__u64)param_alpha_on_init_milli * DCTCP_ALPHA_ONE / 1000;

	ca->alpha = alpha > DCTCP_ALPHA_ONE ? DCTCP_ALPHA_ONE : (__u32)alpha;
	ca->last_delivered = tp->delivered;
	ca->loss_cwnd = 0;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = 0;
	dctcp_new_window(ca, tp);
}

/* ssthresh on ECN-Echo (and on losses with loss_response = alpha): cwnd (1 - alpha / 2). */
static __always_inline __u32 dctcp_alpha_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp *ca = TCPLAB_STATE(struct dctcp, sk);
	__u32 cwnd = tp->snd_cwnd;
	__u32 cut = (__u32)(((__u64)cwnd * ca->alpha) >> 11);

	return tcplab_max(cwnd - cut, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_ssthresh, struct sock *sk)
{
	struct dctcp *ca = TCPLAB_STATE(struct dctcp, sk);

	ca->loss_cwnd = tcp_sk(sk)->snd_cwnd;
	return dctcp_alpha_ssthresh(sk);
}

/* RFC 8257 section 3.4 as Linux: a loss halves whatever alpha is (after ssthresh ran). */
static __always_inline void dctcp_react_to_loss(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp *ca = TCPLAB_STATE(struct dctcp, sk);

	if (param_loss_response != 0)
		return;
	ca->loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = tcplab_max(tp->snd_cwnd >> 1, 2U);
}

SEC("struct_ops")
void BPF_PROG(dctcp_set_state, struct sock *sk, __u8 new_state)
{
	/* set_state runs before icsk_ca_state changes: entering recovery, not staying in it. */
	if (new_state == TCP_CA_Recovery && inet_csk(sk)->icsk_ca_state != TCP_CA_Recovery)
		dctcp_react_to_loss(sk);
}

/* Receiver: the CE state of the segment that just arrived. */
static __always_inline void dctcp_ce_echo(struct sock *sk, __u32 new_ce)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct dctcp *ca = TCPLAB_STATE(struct dctcp, sk);

	if (ca->ce_state != new_ce) {
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			/* The delayed ACK covers earlier segments: it leaves now with their state. */
			if (ca->ce_state)
				tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
			else
				tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
			bpf_tcp_send_ack(tp, ca->prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = new_ce;
	if (new_ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

SEC("struct_ops")
void BPF_PROG(dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
		dctcp_ce_echo(sk, 1);
		break;
	case CA_EVENT_ECN_NO_CE:
		dctcp_ce_echo(sk, 0);
		break;
	case CA_EVENT_LOSS:
		/* A retransmission timeout (tcp_enter_loss calls ssthresh first). */
		dctcp_react_to_loss(sk);
		break;
	default:
		break;
	}
}

SEC("struct_ops")
void BPF_PROG(dctcp_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp *ca = TCPLAB_STATE(struct dctcp, sk);
	__u32 delivered = tp->delivered - ca->last_delivered;

	ca->last_delivered = tp->delivered;
	ca->window_delivered += delivered;
	if (flags & CA_ACK_ECE)
		ca->window_ce += delivered;
	/* !before(snd_una, next_seq), in sequence space. */
	if ((__s32)(tp->snd_una - ca->next_seq) >= 0) {
		__u32 shift = dctcp_shift();
		__u32 alpha = ca->alpha;
		__u32 decay = alpha >> shift;

		alpha -= decay ? decay : alpha;
		if (ca->window_ce) {
			__u64 total = ca->window_delivered ? ca->window_delivered : 1;
			__u64 gain = ((__u64)ca->window_ce << (10 - shift)) / total;

			alpha = (__u32)tcplab_min((__u64)alpha + gain, (__u64)DCTCP_ALPHA_ONE);
		}
		ca->alpha = alpha;
		dctcp_new_window(ca, tp);
	}
}

SEC("struct_ops")
void BPF_PROG(dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	tcplab_additive_increase(tp, tp->snd_cwnd, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_undo_cwnd, struct sock *sk)
{
	struct dctcp *ca = TCPLAB_STATE(struct dctcp, sk);

	return tcplab_max(tcp_sk(sk)->snd_cwnd, ca->loss_cwnd);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_dctcp = {
	.init = (void *)dctcp_init,
	.ssthresh = (void *)dctcp_ssthresh,
	.set_state = (void *)dctcp_set_state,
	.cwnd_event = (void *)dctcp_cwnd_event,
	.in_ack_event = (void *)dctcp_in_ack_event,
	.cong_avoid = (void *)dctcp_cong_avoid,
	.undo_cwnd = (void *)dctcp_undo_cwnd,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "tcplab_dctcp",
};
