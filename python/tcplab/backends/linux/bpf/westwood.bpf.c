/* tcplab_westwood: tcplab's `westwood` (crates/tcplab-core/src/cc/westwood.rs,
 * docs/algorithms/westwood.md) as a kernel congestion control: TCP Westwood+ (Mascolo, Casetti,
 * Gerla, Sanadidi and Wang, MobiCom 2001; the Westwood+ sampling of Grieco and Mascolo, CCR 2004)
 * with the rules the simulator takes from Linux.
 *
 * - Bandwidth: the bytes delivered are summed over sampling windows longer than
 *   max(latest RTT sample, min_sample_window); at the first ACK after a window ends its rate
 *   (bytes / elapsed time) goes through two 7/8 EWMA stages (bw_ns_est, then bw_est; the first
 *   sample sets both). The closing ACK's own bytes count towards the next window.
 * - RTT_min: the smallest RTT sample, relearned from the next sample after a timeout.
 * - The estimated pipe: max(bw_est x RTT_min / MSS, 2) segments.
 * - Loss by fast retransmit: ssthresh = cwnd / 2 (Reno) while recovering; at the end of recovery
 *   ssthresh = the pipe and cwnd = ssthresh. Timeout: ssthresh = the pipe at once (cwnd / 2 before
 *   the first estimate), and RTT_min is relearned. ECN: ssthresh = the pipe at once.
 * - Growth: Reno's (slow start, then one segment per cwnd acknowledged segments).
 *
 * Where the kernel differs from the simulator's inputs:
 * - Delivered bytes: the simulator's ACK event carries the bytes it newly acknowledges,
 *   cumulatively or by SACK. The kernel's pkts_acked gives only the segments the cumulative ACK
 *   removed (ack_sample.pkts_acked, which counts again segments SACKed earlier), and cong_avoid's
 *   `acked` (delivered, SACK included) only on ACKs that may raise cwnd. So the file reads
 *   tcp_sock.delivered (segments delivered so far, cumulatively or by SACK, each once:
 *   include/linux/tcp.h) at every pkts_acked call and counts the difference since the last call
 *   times tcp_sock.mss_cache as the ACK's bytes. A partly acknowledged segment counts as whole
 *   when it is delivered (the simulator counts its bytes as they are acknowledged).
 * - Time: the ACK's time is tcp_sock.tcp_mstamp, microseconds, taken when the kernel began
 *   processing the ACK (the simulator: the ACK's arrival in nanoseconds). RTT samples are
 *   ack_sample.rtt_us (microseconds; negative when the ACK gives none). pkts_acked runs for every
 *   ACK while data is outstanding (tcp_ack calls tcp_clean_rtx_queue, which calls it at its end),
 *   which in a bulk transfer is every ACK, as the simulator's on_ack.
 * - Which reduction: the kernel asks ssthresh() at the start of every reduction without saying
 *   why, so ssthresh() gives Reno's cwnd / 2 and the later hooks replace it: cwnd_event
 *   CA_EVENT_LOSS (tcp_enter_loss calls it right after ssthresh(), timeout) and set_state
 *   TCP_CA_CWR (tcp_enter_cwr: an ECN echo, or a local congestion notice) set snd_ssthresh to
 *   the pipe; CA_EVENT_COMPLETE_CWR (tcp_end_cwnd_reduction: the end of a Recovery that was not
 *   undone, or of CWR) sets ssthresh to the pipe and cwnd = ssthresh, the simulator's
 *   on_recovery_exit. The simulator sets cwnd to the pipe at once after an ECN echo; the kernel
 *   moves cwnd towards the new ssthresh by PRR during the CWR round. A tail loss probe that
 *   repaired a loss enters and leaves CWR at once in both (cwnd = the pipe).
 * - Rates and windows are integers: bytes per second (the EWMA rounds down at each step; the
 *   simulator keeps f64) and whole segments. At 100 Gbit/s (1.25e10 bytes/s), a 10 s window
 *   (sampled bytes x 10^6 < 2^57) and a 10 s RTT_min (rate x RTT < 2^57) stay within u64.
 * - The recovery itself (SACK, PRR, RACK) is the kernel's.
 * Every simulator parameter is exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, min_sample_window_us, 50000);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

struct westwood {
	__u64 bw_ns_est;       /* first EWMA stage, bytes per second */
	__u64 bw_est;          /* second stage, bytes per second */
	__u64 sampled_bytes;   /* delivered in the current sampling window */
	__u64 sample_start_us; /* tcp_mstamp when the window began; 0 before the first ACK */
	__u32 last_delivered;  /* tcp_sock.delivered at the previous ACK */
	__u32 latest_rtt_us;   /* the latest RTT sample; 0 before the first */
	__u32 rtt_min_us;      /* 0 before the first sample */
	__u16 reset_rtt_min;   /* relearn RTT_min from the next sample (after a timeout) */
	__u16 ca_state;        /* the last state set_state gave (TCP_CA_*) */
};

SEC("struct_ops")
void BPF_PROG(westwood_init, struct sock *sk)
{
	struct westwood *w = TCPLAB_STATE(struct westwood, sk);

	w->bw_ns_est = 0;
	w->bw_est = 0;
	w->sampled_bytes = 0;
	w->sample_start_us = 0;
	w->last_delivered = tcp_sk(sk)->delivered;
	w->latest_rtt_us = 0;
	w->rtt_min_us = 0;
	w->reset_rtt_min = 0;
	w->ca_state = TCP_CA_Open;
}

static __always_inline void westwood_filter(struct westwood *w, __u64 rate)
{
	if (w->bw_ns_est == 0 && w->bw_est == 0) {
		w->bw_ns_est = rate;
		w->bw_est = rate;
	} else {
		w->bw_ns_est = (7 * w->bw_ns_est + rate) / 8;
		w->bw_est = (7 * w->bw_est + w->bw_ns_est) / 8;
	}
}

/* The estimated pipe in segments: bw_est x RTT_min / MSS, at least 2. */
static __always_inline __u32 westwood_pipe(const struct sock *sk, const struct westwood *w)
{
	__u64 mss = tcp_sk(sk)->mss_cache ? tcp_sk(sk)->mss_cache : 1;
	__u64 pipe = w->bw_est * w->rtt_min_us / USEC_PER_SEC / mss;

	if (pipe > 0x7fffffffULL)
		pipe = 0x7fffffffULL;
	return tcplab_max((__u32)pipe, 2U);
}

SEC("struct_ops")
void BPF_PROG(westwood_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct westwood *w = TCPLAB_STATE(struct westwood, sk);
	__u64 now = tp->tcp_mstamp;
	__u32 delivered = tp->delivered;
	__u64 acked_bytes = (__u64)(delivered - w->last_delivered) * tp->mss_cache;
	__u64 window_us, elapsed;

	w->last_delivered = delivered;
	if (sample->rtt_us > 0)
		w->latest_rtt_us = sample->rtt_us;
	if (w->sample_start_us == 0)
		w->sample_start_us = now;
	elapsed = now > w->sample_start_us ? now - w->sample_start_us : 0;
	window_us = tcplab_max((__u64)w->latest_rtt_us, (__u64)param_min_sample_window_us);
	if (w->latest_rtt_us > 0 && elapsed > window_us) {
		westwood_filter(w, w->sampled_bytes * USEC_PER_SEC / elapsed);
		w->sampled_bytes = 0;
		w->sample_start_us = now;
	}
	w->sampled_bytes += acked_bytes;
	if (w->latest_rtt_us > 0) {
		if (w->rtt_min_us == 0 || w->reset_rtt_min || w->latest_rtt_us < w->rtt_min_us)
			w->rtt_min_us = w->latest_rtt_us;
		w->reset_rtt_min = 0;
	}
}

SEC("struct_ops")
void BPF_PROG(westwood_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcplab_slow_start_leaves(tp, &acked, param_freeze_when_not_cwnd_limited))
		return;
	tcplab_additive_increase(tp, tp->snd_cwnd, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(westwood_ssthresh, struct sock *sk)
{
	/* Reno's until a later hook knows which reduction this is. */
	return tcplab_max(tcp_sk(sk)->snd_cwnd >> 1, 2U);
}

SEC("struct_ops")
void BPF_PROG(westwood_set_state, struct sock *sk, __u8 new_state)
{
	struct westwood *w = TCPLAB_STATE(struct westwood, sk);

	w->ca_state = new_state;
	/* An ECN echo (tcp_enter_cwr: ssthresh() was just called, the state follows). */
	if (new_state == TCP_CA_CWR && w->bw_est > 0)
		tcp_sk(sk)->snd_ssthresh = westwood_pipe(sk, w);
}

SEC("struct_ops")
void BPF_PROG(westwood_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct westwood *w = TCPLAB_STATE(struct westwood, sk);

	switch (event) {
	case CA_EVENT_LOSS:
		/* A timeout: the pipe at once, and RTT_min relearned. */
		if (w->bw_est > 0)
			tp->snd_ssthresh = westwood_pipe(sk, w);
		w->reset_rtt_min = 1;
		break;
	case CA_EVENT_COMPLETE_CWR:
		/* The end of fast recovery (or of CWR): the window is the measured pipe. Only where
		 * the kernel has just set cwnd = ssthresh itself (tcp_end_cwnd_reduction: in CWR, or
		 * in a Recovery not undone); an undone reduction keeps the restored window, as the
		 * simulator's undo (which does not call on_recovery_exit). */
		if (tp->snd_ssthresh >= TCP_INFINITE_SSTHRESH ||
		    (w->ca_state != TCP_CA_CWR && !tp->undo_marker))
			break;
		if (w->bw_est > 0)
			tp->snd_ssthresh = westwood_pipe(sk, w);
		tp->snd_cwnd = tcplab_min(tp->snd_ssthresh, tp->snd_cwnd_clamp);
		break;
	default:
		break;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(westwood_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_westwood = {
	.init = (void *)westwood_init,
	.pkts_acked = (void *)westwood_pkts_acked,
	.cong_avoid = (void *)westwood_cong_avoid,
	.ssthresh = (void *)westwood_ssthresh,
	.set_state = (void *)westwood_set_state,
	.cwnd_event = (void *)westwood_cwnd_event,
	.undo_cwnd = (void *)westwood_undo_cwnd,
	.name = "tcplab_westwood",
};
