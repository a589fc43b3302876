// Prints every results table of a few scenarios with {:?} so two builds can be diffed.
use tcplab_core::{Scenario, Simulation};
fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut scenario = Scenario::from_toml(&text).unwrap();
        let results = Simulation::new(&scenario).unwrap().run();
        println!("== {path}");
        println!("{:?}", results.flows);
        println!("{:?}", results.links);
        println!("{:?}", results.flow_series);
        println!("{:?}", results.queue_series);
        println!("{:?}", results.events);
        let _ = &mut scenario;
    }
}
