/* tcplab_bbr3: tcplab's `bbr3` (crates/tcplab-core/src/cc/bbr/v3/mod.rs and probe_bw.rs, with the
 * shared pieces of crates/tcplab-core/src/cc/bbr/mod.rs; docs/algorithms/bbr3.md) as a kernel
 * congestion control. BBRv3 as in draft-cardwell-ccwg-bbr and the v3 release of Google's BBR,
 * written here from the simulator's version, which is the specification: its rules, order of
 * updates, constants and parameter defaults.
 *
 * What it implements (all of the simulator's bbr3):
 * - the model: bw_hi, the largest delivery rate of this and the previous PROBE_BW cycle; bw_lo and
 *   inflight_lo cut to max(last round's delivery, (1 - beta) x bound) once per round with loss
 *   outside probing; the min RTT over 10 s with a 5 s PROBE_RTT filter;
 * - STARTUP (full-bandwidth test: 3 rounds below 1.25x; loss exit after full_loss_count loss events
 *   in a recovery round with more than loss_threshold loss), DRAIN, PROBE_BW DOWN / CRUISE / REFILL
 *   / UP with the Reno-coexistence wait (random 2-3 s or min(63, BDP) rounds), PROBE_RTT (cwnd
 *   probe_rtt_cwnd_gain x BDP for 200 ms and a round);
 * - inflight_hi: cut on a probe whose loss rate is above loss_threshold to max(tx_in_flight,
 *   (1 - beta) x target), raised while probing without such loss (growth doubling each round),
 *   with headroom in CRUISE and PROBE_RTT;
 * - the ACK-aggregation allowance in the cwnd target (STARTUP too), Linux BBR's quantization
 *   budget, packet conservation in the first round of recovery and the saved cwnd restored after;
 * - the events bbr3_inflight_hi_cut and bbr3_startup_loss_exit (value: cwnd in segments).
 * Like the simulator it has no ECN response, no PLB and no fast path (docs/algorithms/bbr3.md says
 * why); no simulator parameter is left out (all eleven are below).
 *
 * Where the kernel's inputs differ from the simulator's, and how this file converts:
 * - Units. Windows and in-flight counts are segments (snd_cwnd, tcp_packets_in_flight), delivery
 *   counts are packets (tp->delivered), times are microseconds (tp->tcp_mstamp, rate_sample.rtt_us)
 *   where the simulator has bytes and nanoseconds. Bandwidth is kept as Linux BBR keeps it, in
 *   segments per microsecond << 24 (BW_SCALE 24), instead of the simulator's bits per second; the
 *   pacing rate is written to sk_pacing_rate in bytes per second (payload, mss_cache bytes per
 *   segment). Gains are the parameters in millionths (_micro), exact to the simulator's float to
 *   1e-6. At 100 Gbit/s and 1448-byte segments bw is 1.5e8 (< 2^28); the largest products
 *   (bw x min RTT x gain, bw x mss x 1e6) stay below 2^60 there.
 * - The hook. cong_control(sk, ack, flag, rate_sample) runs on every ACK after the kernel's
 *   SACK/RACK processing (include/net/tcp.h, net/ipv4/tcp_input.c tcp_cong_control); the kernel
 *   then runs no PRR and no cong_avoid, and sets no pacing rate of its own. The simulator's
 *   AckEvent fields come from: acked_segments = rs->acked_sacked, newly_lost_segments =
 *   rs->losses, bytes_in_flight = tcp_packets_in_flight after the ACK, bytes_in_flight_before =
 *   rs->prior_in_flight, delivered = tp->delivered, prior_delivered = rs->prior_delivered (when
 *   rs->prior_mstamp says the ACK delivered a sampled skb), the delivery rate = rs->delivered /
 *   rs->interval_us when rs->delivered >= 0 and rs->interval_us > 0 (the kernel's own test of a
 *   valid sample, the same rule as the simulator's: interval = max(send, ACK interval), none below
 *   the min RTT), delivery_rate_app_limited = rs->is_app_limited, rtt_sample = rs->rtt_us when >=
 *   0, cwnd_limited = tcp_is_cwnd_limited. The simulator calls its on_ack only for ACKs that
 *   acknowledged something or gave an RTT sample; this file skips the others the same way.
 * - tx_in_flight and lost_since_sent. The simulator records, in each segment it sends, the bytes
 *   in flight and the bytes lost so far (as Google's BBRv3 kernel adds tx.in_flight and tx.lost to
 *   each skb). Linux 6.18's skb and rate_sample carry neither, and a congestion control has no hook
 *   per sent packet. This file rebuilds them: after each ACK it records (delivered, tp->lost,
 *   snd_nxt, packets in flight) in a ring of 1024 snapshots (one at least every cwnd/256 packets
 *   delivered, whenever tp->lost changed, and when set_state enters recovery or a timeout, whose
 *   loss marks precede the retransmissions sent before the next ACK); the sampled skb was sent when tp->delivered was
 *   rs->prior_delivered, so the latest snapshot at or before that gives lost_at_send (tp->lost
 *   then) and tx_in_flight = in flight then + segments sent after it up to the sampled one
 *   (rs->last_end_seq - snd_nxt then, rounded up; 1 for a retransmission) - packets delivered in
 *   between. Losses marked and retransmissions sent between the snapshot and the send are not
 *   seen: the estimate is exact at one snapshot per ACK and coarser by at most cwnd/256 packets.
 * - Recovery. The simulator's FastRetransmit is set_state(TCP_CA_Recovery) from a lower state, its
 *   Timeout is every set_state(TCP_CA_Loss) (the kernel has already set cwnd to in flight + 1;
 *   this file sets 1 as the simulator), and the end of recovery (on_recovery_exit,
 *   on_timeout_recovery_exit) is set_state to Open, Disorder or CWR from Recovery or Loss. The
 *   kernel's SACK, RACK and F-RTO decide when these happen, not the simulator's sender. undo_cwnd
 *   keeps the window, as the simulator's default (and Linux BBR) does. The simulator's "round
 *   start" at a timeout is overwritten by its next ACK before anything reads it; nothing here.
 * - Idle: the simulator's on_packet_sent into an empty pipe is cwnd_event(CA_EVENT_TX_START).
 * - Clocks. The simulator's timers start at 0 with the simulation; here they start at the
 *   connection's init (tp->tcp_mstamp), which is the same for flows that start at time 0.
 * - Randomness: the PROBE_BW wait draws from bpf_get_prandom_u32 instead of the flow's seeded
 *   stream (same distributions: 0 or 1 extra round, 2 s + uniform [0, 1 s)).
 * - ssthresh: written each ACK with the simulator's getter (the model's BDP once the pipe is
 *   full, else infinite) so that TCP_INFO shows the same; the kernel uses it for nothing else here.
 * - cwnd is capped at snd_cwnd_clamp, where the simulator caps at its u32 limit.
 *
 * State: about 17 kB a connection (the snapshot ring), in a BPF_MAP_TYPE_SK_STORAGE map created
 * in init and freed with the socket. */
#include "tcplab_cc.h"

TCPLAB_LICENSE;

TCPLAB_PARAM(__u32, startup_pacing_gain_micro, 2770000);
TCPLAB_PARAM(__u32, startup_cwnd_gain_micro, 2000000);
TCPLAB_PARAM(__u32, drain_gain_micro, 346620); /* 1 / 2.885 */
TCPLAB_PARAM(__u32, cwnd_gain_micro, 2000000);
TCPLAB_PARAM(__u32, probe_up_cwnd_gain_micro, 250000);
TCPLAB_PARAM(__u32, loss_threshold_micro, 20000);
TCPLAB_PARAM(__u32, beta_micro, 300000);
TCPLAB_PARAM(__u32, headroom_micro, 150000);
TCPLAB_PARAM(__u32, full_loss_count, 6);
TCPLAB_PARAM(__u32, probe_rtt_cwnd_gain_micro, 500000);
TCPLAB_PARAM(__u32, extra_acked_gain_micro, 1000000);

#define MICRO 1000000ULL
#define BW_SHIFT 24 /* bandwidth: segments per microsecond << 24 */
#define NONE64 (~0ULL)
#define NONE32 (~0U)

/* The simulator's constants (bbr/v3/mod.rs, bbr/mod.rs). */
#define MIN_RTT_WINDOW_US (10 * USEC_PER_SEC)
#define PROBE_RTT_INTERVAL_US (5 * USEC_PER_SEC)
#define PROBE_RTT_DURATION_US (200 * USEC_PER_MSEC)
#define PACING_KEEP_MICRO 990000ULL /* 1 - PACING_MARGIN (1%) */
#define MIN_CWND 4U
#define PROBE_MAX_ROUNDS 63U
#define PROBE_BASE_WAIT_US (2 * USEC_PER_SEC)
#define PROBE_RAND_WAIT_US USEC_PER_SEC
#define PROBE_UP_PACING_MICRO 1250000U
#define PROBE_DOWN_PACING_MICRO 910000U
#define EXTRA_ACKED_WINDOW_ROUNDS 5U
#define EPOCH_RESET_SEGMENTS (1U << 20)
#define EXTRA_ACKED_MAX_US (100 * USEC_PER_MSEC)

enum bbr3_mode {
	STARTUP,
	DRAIN,
	PROBE_DOWN,
	PROBE_CRUISE,
	PROBE_REFILL,
	PROBE_UP,
	PROBE_RTT,
};

enum bbr3_ack_phase {
	ACK_INIT,
	ACK_PROBE_STARTING,
	ACK_PROBE_FEEDBACK,
	ACK_PROBE_STOPPING,
	ACK_REFILLING,
};

/* The connection's state after each ACK, for tx_in_flight and lost_since_sent (see above). */
#define HIST_SIZE 1024
#define HIST_MASK (HIST_SIZE - 1)
#define HIST_SEARCH_STEPS 11 /* > log2(HIST_SIZE) */

struct bbr3_snapshot {
	__u32 delivered;
	__u32 lost;
	__u32 snd_nxt;
	__u32 in_flight;
};

struct bbr3_core {
	__u64 pacing_rate; /* bytes per second */
	__u64 bw_hi[2];    /* previous and current cycle; BW_SHIFT units */
	__u64 bw_lo;       /* NONE64: unset */
	__u64 bw_latest;
	__u64 full_bw;
	__u64 min_rtt_us; /* NONE64: no sample yet */
	__u64 min_rtt_stamp;
	__u64 probe_rtt_min_us; /* NONE64 */
	__u64 probe_rtt_min_stamp;
	__u64 probe_rtt_done;
	__u64 cycle_stamp;
	__u64 probe_wait_us;
	__u64 round_count;
	__u64 next_round_delivered;
	__u64 loss_round_delivered;
	__u64 last_delivered;
	__u64 agg_epoch_start;
	__u32 agg_epoch_acked;
	__u32 agg_extra[2];
	__u32 agg_window;
	__u32 agg_rounds;
	__u32 pacing_gain;  /* micro */
	__u32 cwnd_gain;    /* micro */
	__u32 inflight_hi;  /* segments; NONE32: unset */
	__u32 inflight_lo;  /* NONE32 */
	__u32 inflight_latest;
	__u32 prior_cwnd;
	__u32 initial_window;
	__u32 rounds_since_probe;
	__u32 probe_up_rounds;
	__u32 probe_up_acks;
	__u32 probe_up_cnt; /* NONE32 */
	__u32 loss_events_in_round;
	__u32 full_bw_count;
	__u32 hist_count;
	__u32 hist_last_delivered;
	__u32 hist_last_lost;
	__u8 mode;
	__u8 ack_phase;
	bool pacing_from_rtt;
	bool round_start;
	bool loss_round_start;
	bool loss_in_round;
	bool full_bw_now;
	bool full_bw_reached;
	bool has_probe_rtt_done;
	bool probe_rtt_round_done;
	bool bw_probe_samples;
	bool prev_probe_too_high;
	bool stopped_risky_probe;
	bool packet_conservation;
	bool reset_to_inflight;
	bool in_loss_recovery;
	bool idle_restart;
	__u8 events; /* EVENT_* raised during this ACK, reported by cong_control */
};

#define EVENT_INFLIGHT_HI_CUT 1
#define EVENT_STARTUP_LOSS_EXIT 2

struct bbr3 {
	struct bbr3_core c;
	struct bbr3_snapshot hist[HIST_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct bbr3);
} bbr3_state SEC(".maps");

/* What one ACK tells the algorithm: the simulator's AckEvent, in segments and microseconds. */
struct bbr3_ack {
	__u64 now;
	__u64 delivered;
	__u64 prior_delivered;
	__u64 sample_bw;
	__u32 acked;
	__u32 losses;
	__u32 in_flight;
	__u32 prior_in_flight;
	__u32 rs_delivered;
	__u32 tx_in_flight;
	__u32 lost_since_sent;
	__u32 rtt_us;
	__u32 cwnd;  /* snd_cwnd before this ACK */
	__u32 srtt_us;
	__u32 clamp; /* snd_cwnd_clamp */
	__u32 mss;
	__u32 lost_now;       /* tp->lost */
	__u32 prior_delivered_pkts; /* rs->prior_delivered */
	__u32 last_end_seq;   /* rs->last_end_seq */
	bool has_prior;
	bool has_sample;
	bool has_rtt;
	bool app_limited;
	bool cwnd_limited;
};

/* x * g / 1e6 without overflow for x < 2^60, g < 2^24. */
static __always_inline __u64 mul_micro(__u64 x, __u64 g)
{
	return x / MICRO * g + x % MICRO * g / MICRO;
}

static __always_inline __u32 sat_sub(__u32 a, __u32 b)
{
	return a > b ? a - b : 0;
}

static __always_inline bool is_probe_bw(const struct bbr3_core *b)
{
	return b->mode >= PROBE_DOWN && b->mode <= PROBE_UP;
}

static __always_inline __u64 max_bw(const struct bbr3_core *b)
{
	return tcplab_max(b->bw_hi[0], b->bw_hi[1]);
}

/* bw_hi bounded by bw_lo. */
static __always_inline __u64 bbr_bw(const struct bbr3_core *b)
{
	__u64 hi = max_bw(b);

	return b->bw_lo == NONE64 ? hi : tcplab_min(hi, b->bw_lo);
}

/* Linux BBR's quantization budget (bbr/mod.rs quantization_budget): three bursts of about 1 ms at
 * the pacing rate (2 to 127 segments, 1 below 1.2 Mbit/s), the window rounded up to even. */
static __always_inline __u64 quantization_budget(__u64 cwnd, __u64 rate_Bps, __u32 mss)
{
	__u64 one_ms = rate_Bps >> 10;
	__u64 min_segs = rate_Bps * 8 < 1200000 ? 1 : 2;
	__u64 tso = tcplab_min(one_ms, 65536ULL - 1 - 320) / (mss ? mss : 1);

	tso = tcplab_min(tcplab_max(tso, min_segs), 127ULL);
	cwnd += 3 * tso;
	return (cwnd + 1) & ~1ULL;
}

/* gain x bw x min RTT in segments, rounded up, plus extra, plus the quantization budget, plus 2
 * in PROBE_UP (bbr_inflight; the initial window before the first RTT sample). */
static __always_inline __u32 inflight_with(const struct bbr3_core *b, __u64 bw, __u32 gain, __u32 extra,
					   __u32 mss)
{
	__u64 bdp, target;

	if (b->min_rtt_us == NONE64)
		return b->initial_window;
	bdp = mul_micro(bw * b->min_rtt_us, gain);
	bdp = ((bdp + (1ULL << BW_SHIFT) - 1) >> BW_SHIFT) + extra;
	target = quantization_budget(bdp, b->pacing_rate, mss);
	if (b->mode == PROBE_UP)
		target += 2;
	return (__u32)tcplab_min(target, 0xffffffffULL);
}

static __always_inline __u32 inflight(const struct bbr3_core *b, __u64 bw, __u32 gain, __u32 mss)
{
	return inflight_with(b, bw, gain, 0, mss);
}

static __always_inline __u32 target_inflight(const struct bbr3_core *b, __u32 cwnd, __u32 mss)
{
	return tcplab_min(inflight(b, bbr_bw(b), MICRO, mss), cwnd);
}

static __always_inline __u32 inflight_with_headroom(const struct bbr3_core *b)
{
	__u32 hi = b->inflight_hi, headroom;

	if (hi == NONE32)
		return NONE32;
	headroom = tcplab_max((__u32)((__u64)hi * param_headroom_micro / MICRO), 1U);
	return tcplab_max(sat_sub(hi, headroom), MIN_CWND);
}

static __always_inline __u32 probe_rtt_cwnd(const struct bbr3_core *b, __u32 mss)
{
	return tcplab_max(inflight(b, bbr_bw(b), param_probe_rtt_cwnd_gain_micro, mss), MIN_CWND);
}

/* Pacing rate in bytes per second for bw (BW_SHIFT units) and gain, less the 1% margin. */
static __always_inline __u64 pacing_rate_of(__u64 bw, __u32 gain, __u32 mss)
{
	__u64 rate = mul_micro(bw * mss, gain);

	/* bytes per microsecond << BW_SHIFT, times 1e6 x 0.99 */
	return (rate * PACING_KEEP_MICRO) >> BW_SHIFT;
}

/* The initial window over the RTT (srtt, or 1 ms before a sample) at the STARTUP gain. */
static __always_inline void init_pacing_rate(struct bbr3_core *b, __u32 srtt_us, __u32 mss)
{
	__u64 rtt = srtt_us ? srtt_us : USEC_PER_MSEC;
	__u64 rate = (__u64)b->initial_window * mss * USEC_PER_SEC / rtt;

	rate = mul_micro(rate, param_startup_pacing_gain_micro);
	b->pacing_rate = rate * PACING_KEEP_MICRO / MICRO;
	b->pacing_from_rtt = srtt_us != 0;
}

/* ---- ACK aggregation (bbr/mod.rs AckAggregation) ---- */

static __always_inline void agg_update(struct bbr3_core *b, const struct bbr3_ack *a, __u64 bw, __u32 cwnd)
{
	__u64 elapsed, expected;
	__u32 extra, w;

	if (a->acked == 0)
		return;
	if (b->round_start) {
		b->agg_rounds = tcplab_min(b->agg_rounds + 1, 31U);
		if (b->agg_rounds >= EXTRA_ACKED_WINDOW_ROUNDS) {
			b->agg_rounds = 0;
			b->agg_window ^= 1;
			b->agg_extra[b->agg_window & 1] = 0;
		}
	}
	elapsed = a->now > b->agg_epoch_start ? a->now - b->agg_epoch_start : 0;
	elapsed = tcplab_min(elapsed, 1ULL << 32);
	expected = (bw * elapsed) >> BW_SHIFT;
	if (b->agg_epoch_acked <= expected || b->agg_epoch_acked + a->acked >= EPOCH_RESET_SEGMENTS) {
		b->agg_epoch_acked = 0;
		b->agg_epoch_start = a->now;
		expected = 0;
	}
	b->agg_epoch_acked = tcplab_min(b->agg_epoch_acked + a->acked, EPOCH_RESET_SEGMENTS - 1);
	extra = b->agg_epoch_acked > expected ? (__u32)(b->agg_epoch_acked - expected) : 0;
	extra = tcplab_min(extra, cwnd);
	w = b->agg_window & 1;
	b->agg_extra[w] = tcplab_max(b->agg_extra[w], extra);
}

static __always_inline __u32 agg_allowance(const struct bbr3_core *b, __u64 bw)
{
	__u64 extra = tcplab_max(b->agg_extra[0], b->agg_extra[1]);
	__u64 cap = (bw * EXTRA_ACKED_MAX_US) >> BW_SHIFT;

	return (__u32)tcplab_min(extra * param_extra_acked_gain_micro / MICRO, cap);
}

/* ---- tx_in_flight and lost_since_sent (see the opening comment) ---- */

/* After an ACK; or, with `marked`, when recovery or a timeout has just marked segments lost
 * (set_state: the retransmissions that follow are sent before the next ACK, and their
 * lost_at_send must include those marks). A snapshot at an unchanged delivered count replaces
 * the last one then. */
static __always_inline void hist_record(struct bbr3 *s, const struct bbr3_snapshot *now, __u32 cwnd, bool marked)
{
	struct bbr3_core *b = &s->c;
	__u32 delivered = now->delivered, lost = now->lost;
	__u32 step = tcplab_max(cwnd / (HIST_SIZE / 4), 1U);
	__u32 slot = b->hist_count;
	struct bbr3_snapshot *snap;

	if (b->hist_count) {
		if (delivered == b->hist_last_delivered) {
			if (!marked || lost == b->hist_last_lost)
				return;
			slot = b->hist_count - 1;
		} else if (delivered - b->hist_last_delivered < step && lost == b->hist_last_lost) {
			return;
		}
	}
	snap = &s->hist[slot & HIST_MASK];
	snap->delivered = delivered;
	snap->lost = lost;
	snap->snd_nxt = now->snd_nxt;
	snap->in_flight = now->in_flight;
	b->hist_count = slot + 1;
	b->hist_last_delivered = delivered;
	b->hist_last_lost = lost;
}

static __always_inline void hist_lookup(struct bbr3 *s, struct bbr3_ack *a)
{
	struct bbr3_core *b = &s->c;
	__u32 prior_delivered = a->prior_delivered_pkts, end_seq = a->last_end_seq;
	__u32 n = b->hist_count, lo, hi, mss = a->mss;
	struct bbr3_snapshot *snap;
	__s32 sent_after;
	__u32 tx;

	if (n == 0)
		return;
	lo = n > HIST_SIZE ? n - HIST_SIZE : 0;
	hi = n;
	/* The latest snapshot with delivered <= prior_delivered (the oldest kept if none). */
	for (int i = 0; i < HIST_SEARCH_STEPS; i++) {
		__u32 mid;

		if (hi - lo <= 1)
			break;
		mid = lo + (hi - lo) / 2;
		if ((__s32)(s->hist[mid & HIST_MASK].delivered - prior_delivered) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	snap = &s->hist[lo & HIST_MASK];
	sent_after = (__s32)(end_seq - snap->snd_nxt);
	tx = snap->in_flight + (sent_after > 0 ? ((__u32)sent_after + mss - 1) / mss : 1);
	if ((__s32)(prior_delivered - snap->delivered) > 0)
		tx = sat_sub(tx, prior_delivered - snap->delivered);
	a->tx_in_flight = tcplab_max(tx, 1U);
	a->lost_since_sent = a->lost_now - snap->lost;
}

/* ---- The model (v3/mod.rs and probe_bw.rs) ---- */

static __always_inline bool is_inflight_too_high(const struct bbr3_ack *a)
{
	return a->lost_since_sent > 0 && a->tx_in_flight > 0 &&
	       (__u64)a->lost_since_sent * MICRO > (__u64)a->tx_in_flight * param_loss_threshold_micro;
}

static __always_inline void reset_lower_bounds(struct bbr3_core *b)
{
	b->bw_lo = NONE64;
	b->inflight_lo = NONE32;
}

static __always_inline void reset_congestion_signals(struct bbr3_core *b)
{
	b->loss_in_round = false;
	b->bw_latest = 0;
	b->inflight_latest = 0;
}

static __always_inline void reset_full_bw(struct bbr3_core *b)
{
	b->full_bw = 0;
	b->full_bw_count = 0;
	b->full_bw_now = false;
}

static __always_inline bool is_probing_bandwidth(const struct bbr3_core *b)
{
	return b->mode == STARTUP || b->mode == PROBE_REFILL || b->mode == PROBE_UP;
}

static __always_inline void save_cwnd(struct bbr3_core *b, __u32 cwnd)
{
	if (b->in_loss_recovery || b->mode == PROBE_RTT)
		b->prior_cwnd = tcplab_max(b->prior_cwnd, cwnd);
	else
		b->prior_cwnd = cwnd;
}

static __always_inline void start_probe_down(struct bbr3_core *b, __u64 now)
{
	reset_congestion_signals(b);
	b->probe_up_cnt = NONE32;
	/* bbr_pick_probe_wait: 0 or 1 extra round, 2 s + uniform [0, 1 s). */
	b->rounds_since_probe = bpf_get_prandom_u32() & 1;
	b->probe_wait_us = PROBE_BASE_WAIT_US + bpf_get_prandom_u32() % PROBE_RAND_WAIT_US;
	b->cycle_stamp = now;
	b->ack_phase = ACK_PROBE_STOPPING;
	b->next_round_delivered = b->last_delivered;
	b->mode = PROBE_DOWN;
}

static __always_inline void start_probe_cruise(struct bbr3_core *b)
{
	if (b->inflight_lo != NONE32 && b->inflight_hi != NONE32)
		b->inflight_lo = tcplab_min(b->inflight_lo, b->inflight_hi);
	b->mode = PROBE_CRUISE;
}

static __always_inline void start_probe_refill(struct bbr3_core *b)
{
	reset_lower_bounds(b);
	b->probe_up_rounds = 0;
	b->probe_up_acks = 0;
	b->stopped_risky_probe = false;
	b->ack_phase = ACK_REFILLING;
	b->next_round_delivered = b->last_delivered;
	b->mode = PROBE_REFILL;
}

/* Each round of PROBE_UP doubles the growth of inflight_hi. */
static __always_inline void raise_inflight_hi_slope(struct bbr3_core *b, __u32 cwnd)
{
	__u32 growth = 1U << tcplab_min(b->probe_up_rounds, 30U);

	b->probe_up_rounds = tcplab_min(b->probe_up_rounds + 1, 30U);
	b->probe_up_cnt = tcplab_max(cwnd / growth, 1U);
}

static __always_inline void start_probe_up(struct bbr3_core *b, __u64 now, __u64 sample_bw, __u32 cwnd)
{
	b->ack_phase = ACK_PROBE_STARTING;
	b->next_round_delivered = b->last_delivered;
	b->cycle_stamp = now;
	reset_full_bw(b);
	b->full_bw = sample_bw;
	b->mode = PROBE_UP;
	raise_inflight_hi_slope(b, cwnd);
}

static __always_inline void probe_inflight_hi_upward(struct bbr3_core *b, const struct bbr3_ack *a, __u32 cwnd)
{
	__u32 hi = b->inflight_hi, cnt;

	if (hi == NONE32)
		return;
	if (!a->cwnd_limited || cwnd < hi)
		return;
	cnt = tcplab_max(b->probe_up_cnt, 1U);
	b->probe_up_acks += a->acked;
	if (b->probe_up_acks >= cnt) {
		__u32 delta = b->probe_up_acks / cnt;

		b->probe_up_acks -= delta * cnt;
		b->inflight_hi = hi + delta;
	}
	if (b->round_start)
		raise_inflight_hi_slope(b, cwnd);
}

static __always_inline void handle_inflight_too_high(struct bbr3_core *b,
						     const struct bbr3_ack *a, __u32 cwnd, __u32 mss)
{
	b->prev_probe_too_high = true;
	b->bw_probe_samples = false;
	if (!a->app_limited) {
		__u32 target = (__u32)((__u64)target_inflight(b, cwnd, mss) * (MICRO - param_beta_micro) / MICRO);

		b->inflight_hi = tcplab_max(a->tx_in_flight, target);
		b->events |= EVENT_INFLIGHT_HI_CUT;
	}
	if (b->mode == PROBE_UP)
		start_probe_down(b, a->now);
}

/* bbr_adapt_upper_bounds; true if it already chose a state transition. */
static __always_inline bool adapt_upper_bounds(struct bbr3_core *b, const struct bbr3_ack *a,
					       __u32 cwnd, __u32 mss)
{
	if (b->ack_phase == ACK_PROBE_STARTING && b->round_start)
		b->ack_phase = ACK_PROBE_FEEDBACK;
	if (b->ack_phase == ACK_PROBE_STOPPING && b->round_start) {
		b->bw_probe_samples = false;
		b->ack_phase = ACK_INIT;
		if (is_probe_bw(b) && !a->app_limited && b->bw_hi[1] > 0) {
			b->bw_hi[0] = b->bw_hi[1];
			b->bw_hi[1] = 0;
		}
		if (is_probe_bw(b) && b->stopped_risky_probe && !b->prev_probe_too_high) {
			start_probe_refill(b);
			return true;
		}
	}
	if (is_inflight_too_high(a)) {
		if (b->bw_probe_samples)
			handle_inflight_too_high(b, a, cwnd, mss);
	} else if (b->inflight_hi != NONE32) {
		if (a->tx_in_flight > b->inflight_hi)
			b->inflight_hi = a->tx_in_flight;
		if (b->mode == PROBE_UP)
			probe_inflight_hi_upward(b, a, cwnd);
	}
	return false;
}

static __always_inline bool check_time_to_probe_bw(struct bbr3_core *b, __u64 now, __u32 cwnd, __u32 mss)
{
	__u32 reno_rounds = tcplab_min(PROBE_MAX_ROUNDS, target_inflight(b, cwnd, mss));

	if (now - b->cycle_stamp > b->probe_wait_us || b->rounds_since_probe >= reno_rounds) {
		start_probe_refill(b);
		return true;
	}
	return false;
}

static __always_inline void update_cycle_phase(struct bbr3_core *b, const struct bbr3_ack *a,
					       __u64 sample_bw, __u32 cwnd, __u32 mss)
{
	__u32 in_flight = a->prior_in_flight;

	if (!b->full_bw_reached || adapt_upper_bounds(b, a, cwnd, mss))
		return;
	switch (b->mode) {
	case PROBE_CRUISE:
		check_time_to_probe_bw(b, a->now, cwnd, mss);
		break;
	case PROBE_REFILL:
		if (b->round_start) {
			b->bw_probe_samples = true;
			start_probe_up(b, a->now, sample_bw, cwnd);
		}
		break;
	case PROBE_UP: {
		bool done = false;

		if (b->prev_probe_too_high && b->inflight_hi != NONE32 && in_flight >= b->inflight_hi) {
			b->stopped_risky_probe = true;
			done = true;
		} else if (a->cwnd_limited && b->inflight_hi != NONE32 && cwnd >= b->inflight_hi) {
			reset_full_bw(b);
			b->full_bw = sample_bw;
		} else if (b->full_bw_now) {
			done = true;
		}
		if (done) {
			b->prev_probe_too_high = false;
			start_probe_down(b, a->now);
		}
		break;
	}
	case PROBE_DOWN: {
		__u32 headroom;

		if (check_time_to_probe_bw(b, a->now, cwnd, mss))
			return;
		headroom = inflight_with_headroom(b);
		if ((headroom == NONE32 || in_flight <= headroom) && in_flight <= inflight(b, max_bw(b), MICRO, mss))
			start_probe_cruise(b);
		break;
	}
	default:
		break;
	}
}

static __always_inline void update_congestion_signals(struct bbr3_core *b, const struct bbr3_ack *a, __u32 cwnd)
{
	__u64 bw = a->sample_bw;

	if (!a->has_sample)
		return;
	if (!a->app_limited || bw >= max_bw(b))
		b->bw_hi[1] = tcplab_max(b->bw_hi[1], bw);
	if (a->losses > 0)
		b->loss_in_round = true;
	if (!b->loss_round_start)
		return;
	/* bbr_adapt_lower_bounds: once per round with loss, outside bandwidth probing. */
	if (b->loss_in_round && !is_probing_bandwidth(b)) {
		__u64 keep = MICRO - param_beta_micro;
		__u64 bw_lo = b->bw_lo == NONE64 ? max_bw(b) : b->bw_lo;
		__u32 inflight_lo = b->inflight_lo == NONE32 ? cwnd : b->inflight_lo;

		b->bw_lo = tcplab_max(tcplab_max(b->bw_latest, mul_micro(bw_lo, keep)), 1ULL);
		b->inflight_lo = tcplab_max(b->inflight_latest, (__u32)((__u64)inflight_lo * keep / MICRO));
	}
	b->loss_in_round = false;
}

static __always_inline void check_loss_too_high_in_startup(struct bbr3_core *b,
							   const struct bbr3_ack *a, __u32 cwnd, __u32 mss)
{
	if (b->full_bw_reached)
		return;
	if (a->losses > 0 && b->loss_events_in_round < 15)
		b->loss_events_in_round++;
	if (b->loss_round_start && b->in_loss_recovery && b->loss_events_in_round >= param_full_loss_count &&
	    is_inflight_too_high(a)) {
		b->full_bw_reached = true;
		b->inflight_hi = tcplab_max(inflight(b, max_bw(b), MICRO, mss), b->inflight_latest);
		b->events |= EVENT_STARTUP_LOSS_EXIT;
		return;
	}
	if (b->loss_round_start)
		b->loss_events_in_round = 0;
}

static __always_inline void check_full_bw_reached(struct bbr3_core *b, const struct bbr3_ack *a)
{
	if (b->full_bw_now || a->app_limited)
		return;
	/* sample >= 1.25 x full_bw */
	if (a->sample_bw * 4 >= b->full_bw * 5) {
		reset_full_bw(b);
		b->full_bw = a->sample_bw;
		return;
	}
	if (!b->round_start)
		return;
	b->full_bw_count++;
	b->full_bw_now = b->full_bw_count >= 3;
	if (b->full_bw_now)
		b->full_bw_reached = true;
}

static __always_inline void check_drain(struct bbr3_core *b, const struct bbr3_ack *a, __u32 mss)
{
	if (b->mode == STARTUP && b->full_bw_reached) {
		b->mode = DRAIN;
		reset_congestion_signals(b);
	}
	if (b->mode == DRAIN && a->in_flight <= inflight(b, max_bw(b), MICRO, mss))
		start_probe_down(b, a->now);
}

/* Returns the cwnd, which leaving PROBE_RTT restores. */
static __always_inline __u32 update_min_rtt(struct bbr3_core *b, const struct bbr3_ack *a, __u32 cwnd, __u32 mss)
{
	__u64 now = a->now;
	bool probe_rtt_expired = now > b->probe_rtt_min_stamp + PROBE_RTT_INTERVAL_US;
	bool min_rtt_expired;

	if (a->has_rtt) {
		if (b->probe_rtt_min_us == NONE64 || a->rtt_us < b->probe_rtt_min_us || probe_rtt_expired) {
			b->probe_rtt_min_us = a->rtt_us;
			b->probe_rtt_min_stamp = now;
		}
	}
	min_rtt_expired = now > b->min_rtt_stamp + MIN_RTT_WINDOW_US;
	if (b->probe_rtt_min_us != NONE64) {
		if (b->min_rtt_us == NONE64 || b->probe_rtt_min_us <= b->min_rtt_us || min_rtt_expired) {
			b->min_rtt_us = b->probe_rtt_min_us;
			b->min_rtt_stamp = b->probe_rtt_min_stamp;
		}
	}
	if (probe_rtt_expired && !b->idle_restart && b->mode != PROBE_RTT) {
		b->mode = PROBE_RTT;
		save_cwnd(b, cwnd); /* after the mode switch, as the simulator: keeps the larger */
		b->has_probe_rtt_done = false;
		b->ack_phase = ACK_PROBE_STOPPING;
		b->next_round_delivered = b->last_delivered;
	}
	if (b->mode == PROBE_RTT) {
		if (!b->has_probe_rtt_done) {
			if (a->in_flight <= probe_rtt_cwnd(b, mss)) {
				b->probe_rtt_done = now + PROBE_RTT_DURATION_US;
				b->has_probe_rtt_done = true;
				b->probe_rtt_round_done = false;
				b->next_round_delivered = a->delivered;
			}
		} else {
			if (b->round_start)
				b->probe_rtt_round_done = true;
			if (b->probe_rtt_round_done && now > b->probe_rtt_done) {
				b->probe_rtt_min_stamp = now;
				cwnd = tcplab_max(cwnd, b->prior_cwnd);
				reset_lower_bounds(b);
				if (b->full_bw_reached) {
					start_probe_down(b, now);
					start_probe_cruise(b);
				} else {
					b->mode = STARTUP;
				}
			}
		}
	}
	if (a->acked > 0)
		b->idle_restart = false;
	return cwnd;
}

static __always_inline void update_gains(struct bbr3_core *b)
{
	switch (b->mode) {
	case STARTUP:
		b->pacing_gain = param_startup_pacing_gain_micro;
		b->cwnd_gain = param_startup_cwnd_gain_micro;
		break;
	case DRAIN:
		b->pacing_gain = param_drain_gain_micro;
		b->cwnd_gain = param_startup_cwnd_gain_micro;
		break;
	case PROBE_UP:
		b->pacing_gain = PROBE_UP_PACING_MICRO;
		b->cwnd_gain = param_cwnd_gain_micro + param_probe_up_cwnd_gain_micro;
		break;
	case PROBE_DOWN:
		b->pacing_gain = PROBE_DOWN_PACING_MICRO;
		b->cwnd_gain = param_cwnd_gain_micro;
		break;
	case PROBE_CRUISE:
	case PROBE_REFILL:
		b->pacing_gain = MICRO;
		b->cwnd_gain = param_cwnd_gain_micro;
		break;
	default: /* PROBE_RTT */
		b->pacing_gain = MICRO;
		b->cwnd_gain = MICRO;
		break;
	}
}

static __always_inline void set_pacing_rate(struct bbr3_core *b, __u32 mss)
{
	__u64 bw = bbr_bw(b), rate;

	if (bw == 0)
		return;
	rate = pacing_rate_of(bw, b->pacing_gain, mss);
	if (b->full_bw_reached || rate > b->pacing_rate)
		b->pacing_rate = tcplab_max(rate, 1ULL);
}

static __always_inline __u32 set_cwnd(struct bbr3_core *b, const struct bbr3_ack *a, __u32 cwnd, __u32 clamp,
				      __u32 mss)
{
	__u32 acked = a->acked, cap;

	if (acked > 0) {
		__u32 in_flight = a->in_flight;
		bool reset = b->reset_to_inflight;

		/* bbr/mod.rs recovery_cwnd */
		b->reset_to_inflight = false;
		if (a->losses > 0)
			cwnd = tcplab_max(sat_sub(cwnd, a->losses), 1U);
		if (reset)
			cwnd = in_flight + acked;
		if (b->packet_conservation) {
			cwnd = tcplab_max(cwnd, in_flight + acked);
		} else {
			__u64 bw = bbr_bw(b);
			__u32 target = inflight_with(b, bw, b->cwnd_gain, agg_allowance(b, bw), mss);

			if (b->full_bw_reached)
				cwnd = tcplab_min(cwnd + acked, target);
			else if (cwnd < target || cwnd < 2 * b->initial_window)
				cwnd += acked;
			cwnd = tcplab_max(cwnd, MIN_CWND);
		}
	}
	if (b->mode == PROBE_RTT)
		cwnd = tcplab_min(cwnd, probe_rtt_cwnd(b, mss));
	/* bbr_bound_cwnd_for_inflight_model */
	if (b->mode == PROBE_CRUISE || b->mode == PROBE_RTT)
		cap = inflight_with_headroom(b);
	else if (is_probe_bw(b))
		cap = b->inflight_hi;
	else
		cap = NONE32;
	cap = tcplab_max(tcplab_min(cap, b->inflight_lo), MIN_CWND);
	return tcplab_min(tcplab_min(cwnd, cap), clamp);
}

static __always_inline __u32 sim_ssthresh(const struct bbr3_core *b, __u32 mss)
{
	if (!b->full_bw_reached)
		return TCP_INFINITE_SSTHRESH;
	return tcplab_max(inflight(b, max_bw(b), MICRO, mss), 2U);
}

/* ---- The ACK's steps as global functions ----
 * Each is verified once on its own (a global BPF function), so that the verifier's count of paths
 * is a sum over the steps and not a product (inlined into cong_control it was 571k of the 1M
 * instructions the verifier allows). Pointers to global functions may be NULL. */
#define BBR3_STEP __attribute__((noinline))

BBR3_STEP int bbr3_hist_lookup(struct bbr3 *s, struct bbr3_ack *a)
{
	if (!s || !a)
		return 0;
	hist_lookup(s, a);
	return 0;
}

BBR3_STEP int bbr3_hist_record(struct bbr3 *s, const struct bbr3_snapshot *now, __u32 cwnd, int marked)
{
	if (!s || !now)
		return 0;
	hist_record(s, now, cwnd, marked);
	return 0;
}

/* bbr_update_latest_delivery_signals and everything up to the PROBE_BW cycle. */
BBR3_STEP int bbr3_before_cycle(struct bbr3_core *b, const struct bbr3_ack *a)
{
	if (!b || !a)
		return 0;
	if (!b->pacing_from_rtt && a->srtt_us)
		init_pacing_rate(b, a->srtt_us, a->mss);
	b->last_delivered = a->delivered;
	b->round_start = false;
	if (a->acked > 0 && a->prior_delivered >= b->next_round_delivered) {
		b->next_round_delivered = a->delivered;
		b->round_count++;
		b->round_start = true;
		b->packet_conservation = false;
		b->rounds_since_probe = tcplab_min(b->rounds_since_probe + 1, 0xffU);
	}
	b->loss_round_start = false;
	if (a->has_sample) {
		b->bw_latest = tcplab_max(b->bw_latest, a->sample_bw);
		b->inflight_latest = tcplab_max(b->inflight_latest, a->rs_delivered);
		if (a->prior_delivered >= b->loss_round_delivered) {
			b->loss_round_delivered = a->delivered;
			b->loss_round_start = true;
		}
	}
	update_congestion_signals(b, a, a->cwnd);
	agg_update(b, a, bbr_bw(b), a->cwnd);
	check_loss_too_high_in_startup(b, a, a->cwnd, a->mss);
	if (a->has_sample)
		check_full_bw_reached(b, a);
	check_drain(b, a, a->mss);
	return 0;
}

BBR3_STEP int bbr3_cycle(struct bbr3_core *b, const struct bbr3_ack *a)
{
	if (!b || !a)
		return 0;
	update_cycle_phase(b, a, a->sample_bw, a->cwnd, a->mss);
	return 0;
}

/* The min RTT and PROBE_RTT, the gains, the pacing rate and the cwnd; returns the new cwnd. */
BBR3_STEP __u32 bbr3_after_cycle(struct bbr3_core *b, const struct bbr3_ack *a)
{
	__u32 cwnd;

	if (!b || !a)
		return 1;
	cwnd = update_min_rtt(b, a, a->cwnd, a->mss);
	update_gains(b);
	set_pacing_rate(b, a->mss);
	cwnd = set_cwnd(b, a, cwnd, a->clamp, a->mss);
	/* bbr_advance_latest_delivery_signals */
	if (b->loss_round_start) {
		b->bw_latest = a->sample_bw;
		b->inflight_latest = a->rs_delivered;
	}
	return cwnd;
}

static __always_inline struct bbr3 *state_of(struct sock *sk)
{
	return bpf_sk_storage_get(&bbr3_state, sk, NULL, 0);
}

static __always_inline void write_pacing_rate(struct sock *sk, __u64 rate)
{
	sk->sk_pacing_rate = tcplab_min(tcplab_max(rate, 1ULL), (__u64)sk->sk_max_pacing_rate);
}

SEC("struct_ops")
void BPF_PROG(bbr3_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr3 *s = bpf_sk_storage_get(&bbr3_state, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	struct bbr3_core *b;
	__u64 now = tp->tcp_mstamp;

	if (!s)
		return;
	b = &s->c;
	__builtin_memset(b, 0, sizeof(*b));
	b->initial_window = tcplab_max(tp->snd_cwnd, 1U);
	b->mode = STARTUP;
	b->pacing_gain = param_startup_pacing_gain_micro;
	b->cwnd_gain = param_startup_cwnd_gain_micro;
	b->bw_lo = NONE64;
	b->min_rtt_us = NONE64;
	b->probe_rtt_min_us = NONE64;
	b->inflight_hi = NONE32;
	b->inflight_lo = NONE32;
	b->probe_up_cnt = NONE32;
	b->loss_round_delivered = 1;
	b->probe_wait_us = PROBE_BASE_WAIT_US;
	b->min_rtt_stamp = now;
	b->probe_rtt_min_stamp = now;
	b->cycle_stamp = now;
	b->agg_epoch_start = now;
	init_pacing_rate(b, tp->srtt_us >> 3, tp->mss_cache);
	sk->sk_pacing_status = SK_PACING_NEEDED;
	write_pacing_rate(sk, b->pacing_rate);
}

SEC("struct_ops")
void BPF_PROG(bbr3_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr3 *s = state_of(sk);
	struct bbr3_core *b;
	struct bbr3_ack a = {};
	struct bbr3_snapshot snap = {};
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1, cwnd = tp->snd_cwnd;
	bool has_prior;

	if (!s)
		return;
	b = &s->c;
	a.now = tp->tcp_mstamp;
	a.acked = rs->acked_sacked;
	a.losses = rs->losses > 0 ? (__u32)rs->losses : 0;
	a.in_flight = tcplab_packets_in_flight(tp);
	a.prior_in_flight = rs->prior_in_flight;
	a.delivered = tp->delivered;
	has_prior = rs->prior_mstamp != 0;
	a.prior_delivered = has_prior ? rs->prior_delivered : a.delivered;
	a.app_limited = rs->is_app_limited;
	a.cwnd_limited = tcplab_is_cwnd_limited(tp);
	if (rs->delivered >= 0 && rs->interval_us > 0) {
		a.has_sample = true;
		a.rs_delivered = (__u32)rs->delivered;
		a.sample_bw = ((__u64)(__u32)rs->delivered << BW_SHIFT) / (__u64)rs->interval_us;
	}
	if (rs->rtt_us >= 0) {
		a.has_rtt = true;
		a.rtt_us = (__u32)tcplab_min((__u64)rs->rtt_us, 0xffffffffULL);
	}
	a.has_prior = has_prior;
	a.cwnd = cwnd;
	a.srtt_us = tp->srtt_us >> 3;
	a.clamp = tp->snd_cwnd_clamp;
	a.mss = mss;
	a.lost_now = tp->lost;
	a.prior_delivered_pkts = rs->prior_delivered;
	a.last_end_seq = rs->last_end_seq;
	if (has_prior)
		bbr3_hist_lookup(s, &a);
	snap.delivered = tp->delivered;
	snap.lost = tp->lost;
	snap.snd_nxt = tp->snd_nxt;
	snap.in_flight = a.in_flight;
	bbr3_hist_record(s, &snap, cwnd, 0);

	/* The simulator's on_ack runs for ACKs that delivered data or gave an RTT sample. */
	if (a.acked == 0 && !a.has_rtt)
		return;

	b->events = 0;
	bbr3_before_cycle(b, &a);
	bbr3_cycle(b, &a);
	cwnd = bbr3_after_cycle(b, &a);
	if (b->events & EVENT_STARTUP_LOSS_EXIT)
		TCPLAB_EVENT(sk, "bbr3_startup_loss_exit", a.cwnd);
	if (b->events & EVENT_INFLIGHT_HI_CUT)
		TCPLAB_EVENT(sk, "bbr3_inflight_hi_cut", a.cwnd);

	tp->snd_cwnd = tcplab_max(cwnd, 1U);
	tp->snd_ssthresh = sim_ssthresh(b, mss);
	write_pacing_rate(sk, b->pacing_rate);
}

static __always_inline void record_marks(struct bbr3 *s, const struct tcp_sock *tp)
{
	struct bbr3_snapshot snap = {
		.delivered = tp->delivered,
		.lost = tp->lost,
		.snd_nxt = tp->snd_nxt,
		.in_flight = tcplab_packets_in_flight(tp),
	};

	bbr3_hist_record(s, &snap, tp->snd_cwnd, 1);
}

SEC("struct_ops")
void BPF_PROG(bbr3_set_state, struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr3 *s = state_of(sk);
	struct bbr3_core *b;
	__u8 old_state = inet_csk(sk)->icsk_ca_state;

	if (!s)
		return;
	b = &s->c;
	if (new_state == TCP_CA_Recovery && old_state != TCP_CA_Recovery) {
		/* The simulator's FastRetransmit. */
		save_cwnd(b, tp->snd_cwnd);
		b->in_loss_recovery = true;
		b->packet_conservation = true;
		b->reset_to_inflight = true;
		b->next_round_delivered = b->last_delivered;
		if (!b->loss_in_round)
			b->loss_round_delivered = b->last_delivered;
		b->loss_in_round = true;
		record_marks(s, tp);
	} else if (new_state == TCP_CA_Loss) {
		/* The simulator's Timeout. */
		save_cwnd(b, tp->snd_cwnd);
		b->in_loss_recovery = true;
		b->packet_conservation = false;
		tp->snd_cwnd = 1;
		/* tcp_enter_loss has marked the outstanding segments lost before this call. */
		record_marks(s, tp);
	} else if (new_state < TCP_CA_Recovery && old_state >= TCP_CA_Recovery) {
		/* on_recovery_exit / on_timeout_recovery_exit */
		b->in_loss_recovery = false;
		b->packet_conservation = false;
		tp->snd_cwnd = tcplab_max(tp->snd_cwnd, b->prior_cwnd);
	}
}

SEC("struct_ops")
void BPF_PROG(bbr3_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct bbr3 *s;

	if (event != CA_EVENT_TX_START)
		return;
	s = state_of(sk);
	if (s)
		s->c.idle_restart = true;
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_ssthresh, struct sock *sk)
{
	struct bbr3 *s = state_of(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (!s)
		return tp->snd_ssthresh;
	return sim_ssthresh(&s->c, tp->mss_cache ? tp->mss_cache : 1);
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_undo_cwnd, struct sock *sk)
{
	/* The simulator's undo_reduction keeps the window (as Linux BBR). */
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops tcplab_bbr3 = {
	.init = (void *)bbr3_init,
	.cong_control = (void *)bbr3_cong_control,
	.set_state = (void *)bbr3_set_state,
	.cwnd_event = (void *)bbr3_cwnd_event,
	.ssthresh = (void *)bbr3_ssthresh,
	.undo_cwnd = (void *)bbr3_undo_cwnd,
	.name = "tcplab_bbr3",
};
