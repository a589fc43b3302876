/* tcplab_nv: tcplab's `nv` (crates/tcplab-core/src/cc/nv.rs, docs/algorithms/nv.md) as a kernel
 * congestion control: TCP-NV (Brakmo, "TCP-NV: An Update to TCP-Vegas", 2010 notes) with the rules
 * the simulator's file takes from Linux's tcp_nv.c.
 *
 * - Per ACK with an RTT sample outside recovery: the smoothed RTT (rtt_factor / 256 of the new
 *   sample), the delivery rate = bytes delivered since the acknowledged segment was sent / that
 *   RTT, the round's largest rate, the minimum RTT (replaced every reset_period x [3/4, 5/4),
 *   first after 2 s).
 * - Once per round with enough ACKs: max_win = max rate x min RTT / MSS + pad. cwnd > max_win
 *   (after rtt_min_cnt rounds and dec_eval_min_calls ACKs, ssthresh_eval_min_calls in the first
 *   slow start): ssthresh = max_win x ssthresh_factor / 8, cwnd falls by max(2, (cwnd -
 *   max_win) cong_dec_mult / 128) (to max_win when 2 or less), growth stops, event
 *   "nv_decrease". cwnd <= max_win - pad_buffer (after inc_eval_min_calls ACKs): growth allowed.
 * - Growth: Reno's, slowed after timeouts (one segment per cwnd x 2^k segments, k up to 8, one
 *   step restored per cwnd_growth_rate_neg no-congestion decisions).
 * - A loss: ssthresh = cwnd x loss_dec_factor / 1024, growth stops, the counters restart after
 *   recovery. A round that sees one ACK raises NV's decision floor (4 segments, up to 81).
 *
 * Where the kernel's inputs differ from the simulator's:
 * - Times are microseconds (ack_sample.rtt_us, tp->tcp_mstamp), the simulator's nanoseconds;
 *   rates are bytes per second here (bits per second there; the same max_win).
 * - The bytes delivered since the acknowledged segment was sent are ack_sample.in_flight, which
 *   the kernel computes as mss x (tp->delivered - the rate sample's prior_delivered): whole
 *   segments, where the simulator counts bytes.
 * - "In recovery" is the kernel's CWR, Recovery or Loss state (icsk_ca_state); the simulator's
 *   in_recovery and its own timeout flag. "The ACK may raise cwnd" for the counter restart is an
 *   ACK that cumulatively acknowledged segments (ack_sample.pkts_acked > 0) in Open or Disorder.
 * - Random numbers (the reset period's spread) are bpf_get_prandom_u32's, not the seeded stream.
 * - Recovery is the kernel's (SACK, PRR, RACK); NV's decreases set snd_cwnd directly, as the
 *   simulator sets its window.
 *
 * All simulator parameters are exposed. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, pad, 10);
TCPLAB_PARAM(__u32, pad_buffer, 2);
TCPLAB_PARAM(__u64, reset_period_us, 5000000);
TCPLAB_PARAM(__u32, min_cwnd, 2);
TCPLAB_PARAM(__u32, cong_dec_mult, 38);
TCPLAB_PARAM(__u32, ssthresh_factor, 8);
TCPLAB_PARAM(__u32, rtt_factor, 128);
TCPLAB_PARAM(__u32, loss_dec_factor, 819);
TCPLAB_PARAM(__u32, cwnd_growth_rate_neg, 8);
TCPLAB_PARAM(__u32, cwnd_growth_rate_pos, 0);
TCPLAB_PARAM(__u32, dec_eval_min_calls, 60);
TCPLAB_PARAM(__u32, inc_eval_min_calls, 20);
TCPLAB_PARAM(__u32, ssthresh_eval_min_calls, 30);
TCPLAB_PARAM(__u32, stop_rtt_cnt, 10);
TCPLAB_PARAM(__u32, rtt_min_cnt, 2);
TCPLAB_PARAM(__u32, freeze_when_not_cwnd_limited, 1);

#define DECISION_MIN_CWND 4
#define DECISION_MIN_CWND_STEP 2
#define DECISION_MIN_CWND_CAP 81
#define FIRST_RESET_US 2000000ULL
#define MIN_GROWTH_FACTOR (-8)
#define NO_RTT 0xffffffffU

struct nv {
	__u64 reset_at;	      /* tcp_mstamp of the next min-RTT replacement, 0 until the first ACK */
	__u64 round_max_rate; /* bytes per second */
	__s32 growth_factor;
	__u32 eval_calls;
	__u32 rtt_count;
	__u32 no_congestion_count;
	__u32 decision_min_cwnd;
	__u32 last_rtt; /* us, 0 before the first sample */
	__u32 min_rtt;
	__u32 min_rtt_new;
	__u32 round_start;
	__u32 last_snd_una;
	__u8 allow_growth;
	__u8 reset_pending;
};

SEC("struct_ops")
void BPF_PROG(nv_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nv *ca = TCPLAB_STATE(struct nv, sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->allow_growth = 1;
	ca->decision_min_cwnd = DECISION_MIN_CWND;
	ca->min_rtt = NO_RTT;
	ca->min_rtt_new = NO_RTT;
	ca->round_start = tp->snd_una;
	ca->last_snd_una = tp->snd_una;
}

static __always_inline void nv_restart_counters(struct nv *ca, __u32 snd_una)
{
	ca->reset_pending = 0;
	ca->no_congestion_count = 0;
	ca->rtt_count = 0;
	ca->last_rtt = 0;
	ca->round_max_rate = 0;
	ca->round_start = snd_una;
	ca->eval_calls = 0;
	ca->last_snd_una = snd_una;
}

/* The window the round's best rate fills over the minimum RTT, plus pad (segments). */
static __always_inline __u32 nv_max_win(struct tcp_sock *tp, struct nv *ca)
{
	__u64 segs, mss = tp->mss_cache ? tp->mss_cache : 1;

	if (ca->min_rtt == NO_RTT || ca->round_max_rate > (1ULL << 40))
		segs = 0x7fffffffULL;
	else
		segs = ca->round_max_rate * ca->min_rtt / USEC_PER_SEC / mss;
	if (segs > 0x7fffffffULL)
		segs = 0x7fffffffULL;
	return (__u32)segs + param_pad;
}

static __always_inline void nv_decide(struct sock *sk, struct nv *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 max_win = nv_max_win(tp, ca);
	__u32 cwnd = tp->snd_cwnd;

	if (cwnd > max_win) {
		if (ca->rtt_count < param_rtt_min_cnt) {
			return;
		} else if (tp->snd_ssthresh >= TCP_INFINITE_SSTHRESH) {
			if (ca->eval_calls < param_ssthresh_eval_min_calls)
				return;
		} else if (ca->eval_calls < param_dec_eval_min_calls) {
			if (ca->allow_growth && ca->rtt_count > param_stop_rtt_cnt)
				ca->allow_growth = 0;
			return;
		}
		ca->allow_growth = 0;
		tp->snd_ssthresh = (__u32)tcplab_max(((__u64)param_ssthresh_factor * max_win) >> 3, 2ULL);
		if (cwnd - max_win > 2) {
			__u64 decrease = tcplab_max(((__u64)(cwnd - max_win) * param_cong_dec_mult) >> 7, 2ULL);

			tp->snd_cwnd = decrease >= cwnd ? 0 : cwnd - (__u32)decrease;
		} else if (param_cong_dec_mult > 0) {
			tp->snd_cwnd = max_win;
		}
		if (ca->growth_factor > 0)
			ca->growth_factor = 0;
		ca->no_congestion_count = 0;
		TCPLAB_EVENT(sk, "nv_decrease", tp->snd_cwnd);
	} else if (cwnd + param_pad_buffer <= max_win) {
		__u32 rate;

		if (ca->eval_calls < param_inc_eval_min_calls)
			return;
		ca->allow_growth = 1;
		ca->no_congestion_count++;
		rate = ca->growth_factor < 0 ? param_cwnd_growth_rate_neg : param_cwnd_growth_rate_pos;
		if (rate > 0 && ca->no_congestion_count > rate) {
			ca->growth_factor++;
			ca->no_congestion_count = 0;
		}
	} else {
		return;
	}
	ca->eval_calls = 0;
	ca->rtt_count = 0;
	ca->round_max_rate = 0;
	tp->snd_cwnd = tcplab_max(tp->snd_cwnd, param_min_cwnd);
}

SEC("struct_ops")
void BPF_PROG(nv_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nv *ca = TCPLAB_STATE(struct nv, sk);
	__u8 ca_state = inet_csk(sk)->icsk_ca_state;
	__u64 now = tp->tcp_mstamp, rate;
	__u32 rtt, bytes_acked, delivered;
	__s32 raw = sample->rtt_us;

	if (sample->pkts_acked > 0 && ca_state < TCP_CA_CWR && ca->reset_pending)
		nv_restart_counters(ca, tp->snd_una);
	if (raw <= 0 || ca_state >= TCP_CA_CWR)
		return;
	bytes_acked = tp->snd_una - ca->last_snd_una;
	ca->last_snd_una = tp->snd_una;
	delivered = sample->in_flight;
	if (!delivered)
		return;
	rtt = (__u32)raw;
	if (param_rtt_factor == 0) {
		/* no averaging */
	} else if (ca->last_rtt > 0) {
		__u64 f = param_rtt_factor > 256 ? 256 : param_rtt_factor;

		rtt = (__u32)(((__u64)rtt * f + (__u64)ca->last_rtt * (256 - f)) >> 8);
	} else {
		/* The first sample: the minimum starts at twice it, so the first rounds do not judge. */
		ca->min_rtt = (__u32)tcplab_min((__u64)rtt * 2, (__u64)NO_RTT - 1);
	}
	if (param_rtt_factor > 0)
		ca->last_rtt = rtt;
	if (rtt == 0)
		rtt = 1;
	rate = (__u64)delivered * USEC_PER_SEC / rtt;
	if (rate > ca->round_max_rate)
		ca->round_max_rate = rate;
	if (ca->eval_calls < 255)
		ca->eval_calls++;
	ca->min_rtt = tcplab_min(ca->min_rtt, rtt);
	ca->min_rtt_new = tcplab_min(ca->min_rtt_new, rtt);
	if (ca->reset_at == 0)
		ca->reset_at = now + FIRST_RESET_US;
	if (now >= ca->reset_at) {
		__u64 spread = 384 + (bpf_get_prandom_u32() & 0xff);

		ca->min_rtt = ca->min_rtt_new;
		ca->min_rtt_new = NO_RTT;
		ca->reset_at = now + param_reset_period_us * spread / 512;
		ca->decision_min_cwnd = tcplab_max(ca->decision_min_cwnd / 2, (__u32)DECISION_MIN_CWND);
	}
	/* The round ends when an ACK passes round_start. */
	if ((__s32)(tp->snd_una - ca->round_start) <= 0)
		return;
	ca->round_start = tp->snd_nxt;
	if (ca->rtt_count < 255)
		ca->rtt_count++;
	/* One ACK for a whole round: cwnd is too small to judge (aggregated ACKs); wait longer. */
	if (ca->eval_calls == 1 && bytes_acked >= (ca->decision_min_cwnd - 1) * tp->mss_cache &&
	    ca->decision_min_cwnd < DECISION_MIN_CWND_CAP) {
		ca->decision_min_cwnd =
			tcplab_min(ca->decision_min_cwnd + DECISION_MIN_CWND_STEP, (__u32)DECISION_MIN_CWND_CAP);
		ca->round_start = tp->snd_nxt + ca->decision_min_cwnd * tp->mss_cache;
		ca->eval_calls = 0;
		ca->allow_growth = 1;
		return;
	}
	nv_decide(sk, ca);
}

SEC("struct_ops")
void BPF_PROG(nv_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct nv *ca = TCPLAB_STATE(struct nv, sk);
	__u32 w, cwnd;

	if (param_freeze_when_not_cwnd_limited && !tcplab_is_cwnd_limited(tp))
		return;
	if (!ca->allow_growth)
		return;
	if (tcplab_in_slow_start(tp)) {
		acked = tcplab_slow_start(tp, acked);
		if (!acked)
			return;
	}
	cwnd = tp->snd_cwnd;
	if (ca->growth_factor < 0) {
		__u32 k = (__u32)(-ca->growth_factor);
		__u64 big = (__u64)cwnd << (k > 8 ? 8 : k);

		w = big > 0xffffffffULL ? 0xffffffffU : (__u32)big;
	} else {
		__u32 k = ca->growth_factor > 31 ? 31 : (__u32)ca->growth_factor;

		w = tcplab_max(cwnd >> k, 4U);
	}
	tcplab_additive_increase(tp, w, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(nv_ssthresh, struct sock *sk)
{
	struct nv *ca = TCPLAB_STATE(struct nv, sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	ca->reset_pending = 1;
	ca->allow_growth = 0;
	return tcplab_max((__u32)(((__u64)cwnd * param_loss_dec_factor) >> 10), 2U);
}

SEC("struct_ops")
void BPF_PROG(nv_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct nv *ca = TCPLAB_STATE(struct nv, sk);

	/* A retransmission timeout slows growth one step (ssthresh ran just before). */
	if (ev != CA_EVENT_LOSS)
		return;
	if (ca->growth_factor > 0)
		ca->growth_factor = 0;
	if (param_cwnd_growth_rate_neg > 0 && ca->growth_factor > MIN_GROWTH_FACTOR)
		ca->growth_factor--;
}

SEC("struct_ops")
__u32 BPF_PROG(nv_undo_cwnd, struct sock *sk)
{
	return tcplab_undo_to_prior(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_nv = {
	.init = (void *)nv_init,
	.ssthresh = (void *)nv_ssthresh,
	.cong_avoid = (void *)nv_cong_avoid,
	.pkts_acked = (void *)nv_pkts_acked,
	.cwnd_event = (void *)nv_cwnd_event,
	.undo_cwnd = (void *)nv_undo_cwnd,
	.name = "tcplab_nv",
};
