//! Every registered algorithm, driven through random sequences of sends, ACKs, losses, ECN marks,
//! timeouts and idle periods (`cc::properties`): it must never panic (overflow checks are on in
//! tests), never report cwnd below one segment or ssthresh below two, and never report absurd
//! windows. The Python tests run the same sequences over the algorithms written in Python.

use serde_json::{json, Value};
use tcplab_core::cc::{properties, registry};

fn exercise(name: &str, params: &Value, seed: u64) {
    if let Err(broken) = properties::exercise(name, params, seed, 3000) {
        panic!("{broken}");
    }
}

#[test]
fn every_algorithm_survives_random_event_sequences() {
    for algorithm in registry() {
        for seed in 0..12 {
            exercise(algorithm.name, &Value::Null, seed * 7919 + 1);
        }
    }
}

#[test]
fn non_default_parameters_survive_too() {
    let variants: &[(&str, Value)] = &[
        (
            "cubic",
            json!({"hystart": false, "fast_convergence": false, "tcp_friendliness": false, "c": 10.0, "beta": 0.1}),
        ),
        ("reno", json!({"freeze_when_not_cwnd_limited": false})),
        ("newreno", json!({"abc_limit": 2})),
        ("bic", json!({"b": 2, "max_increment": 1, "low_window": 2, "smooth_part": 1})),
        ("highspeed", json!({"low_window": 2, "high_window": 100})),
        ("hybla", json!({"rtt0": "1ms"})),
        ("scalable", json!({"ai_count": 1, "md_shift": 1})),
        ("vegas", json!({"alpha": 0, "beta": 1, "gamma": 0})),
        ("veno", json!({"beta": 1})),
        (
            "dctcp",
            json!({"shift_g": 0, "alpha_on_init": 0.0, "arithmetic": "float", "loss_response": "alpha",
                   "freeze_when_not_cwnd_limited": false}),
        ),
        ("westwood", json!({"min_sample_window": "1ms"})),
        ("compound", json!({"alpha": 1.0, "k": 1.0, "gamma": 0.0, "gamma_auto_tuning": true, "low_window_rule": true})),
        ("compound", json!({"alpha": 1.0, "k": 1.0, "gamma": 10_000.0, "zeta": 0.0})),
        ("htcp", json!({"delta_l": "0s", "rtt_scaling": false, "bandwidth_switch": false})),
        (
            "illinois",
            json!({"alpha_min": 0.01, "alpha_max": 100.0, "beta_min": 0.0, "beta_max": 0.9, "win_thresh": 0, "theta": 1}),
        ),
        (
            "yeah",
            json!({"alpha": 1, "gamma": 1000, "delta": 1, "epsilon": 16, "phi": 1, "rho": 1, "zeta": 1, "scalable_ai_count": 1}),
        ),
        (
            "nv",
            json!({"pad": 1, "pad_buffer": 0, "reset_period": "1ms", "cong_dec_mult": 128, "rtt_factor": 0,
                   "loss_dec_factor": 1, "cwnd_growth_rate_pos": 1, "dec_eval_min_calls": 0, "inc_eval_min_calls": 0,
                   "ssthresh_eval_min_calls": 0, "rtt_min_cnt": 0}),
        ),
        ("copa", json!({"delta": 0.001, "min_rtt_window": "1ms"})),
        ("copa", json!({"delta": 10.0, "mode_switching": false})),
    ];
    for (name, params) in variants {
        for seed in 0..6 {
            exercise(name, params, seed * 104_729 + 3);
        }
    }
}
