use tcplab_core::{Scenario, Simulation};
fn rss(tag: &str) { let s = std::fs::read_to_string("/proc/self/status").unwrap(); for l in s.lines() { if l.starts_with("VmHWM") || l.starts_with("VmRSS") { eprint!("{tag} {l}  "); } } eprintln!(); }
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let flows = &a[1]; let dur = &a[2];
    let text = format!("name = \"m\"\n[simulation]\nduration = \"{dur}\"\nseed = 1\nsample_interval = \"100ms\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = \"10Gbps\", delay = \"10ms\", buffer = \"1BDP\" }}\naccess = {{ rate = \"100Gbps\", delay = \"0.5ms\", buffer = \"10000p\" }}\n[tcp]\nmss = \"1448B\"\n[[flows]]\ncc = \"newreno\"\ncount = {flows}\nstart_spread = \"100ms\"\n");
    let sc = Scenario::from_toml(&text).unwrap();
    rss("parsed");
    let mut sim = Simulation::new(&sc).unwrap();
    rss("built");
    sim.run_until(u64::MAX);
    rss("ran");
    let r = sim.results();
    rss("results");
    drop(r);
}
