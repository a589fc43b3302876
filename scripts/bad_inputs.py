"""Writes tests/bad_inputs/: malformed, hostile and extreme scenarios, each with what tcplab must
answer (the key its error names, or a fragment of a file-level message, or a warning's key).

`tests/test_bad_inputs.py` runs every file through `tcplab validate`, `tcplab run` and the API
with a time limit each. Run this script again after adding a case; it rewrites the folder and
its `expected.toml`.

    python3 scripts/bad_inputs.py
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "bad_inputs"

BASE = """\
name = "bad"
[simulation]
duration = "2s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "1BDP" }
[[flows]]
cc = "cubic"
"""

LINK = 'bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "1BDP" }'
FLOW = 'cc = "cubic"'
SIM = 'duration = "2s"'


def with_link(extra: str) -> str:
    return BASE.replace(LINK, LINK[:-2] + ", " + extra + " }")


def with_flow(extra: str) -> str:
    return BASE.replace(FLOW, FLOW + "\n" + extra)


def with_tcp(extra: str) -> str:
    return BASE.replace("[[flows]]", f"[tcp]\n{extra}\n[[flows]]")


def with_sim(extra: str) -> str:
    return BASE.replace(SIM, SIM + "\n" + extra)


# name -> (scenario text, expectation); expectations: "key:<key>", "text:<fragment>", "warn:<key>".
CASES: dict[str, tuple[str, str]] = {}


def case(name: str, text: str | bytes, expect: str) -> None:
    assert name not in CASES, name
    CASES[name] = (text, expect)


# ----- units and values of links -----
for value, tag in [("fast", "word"), ("10MB", "size-unit"), ("-3Mbps", "negative"), ("0bps", "zero"), ("10", "no-unit"),
                   ("nanMbps", "nan"), ("infGbps", "inf"), ("", "empty"), ("1e30Gbps", "huge"), ("10 Mbit per s", "phrase")]:
    case(f"link-rate-{tag}", BASE.replace('rate = "10Mbps"', f'rate = "{value}"'), "key:topology.bottleneck.rate")
for value, tag in [("10", "no-unit"), ("-1ms", "negative"), ("10Mbps", "rate-unit"), ("1e30s", "too-long"), ("NaNms", "nan"),
                   ("10 days", "unknown-unit")]:
    case(f"link-delay-{tag}", BASE.replace('delay = "10ms"', f'delay = "{value}"'), "key:topology.bottleneck.delay")
for value, tag in [("0p", "zero-packets"), ("0B", "zero-bytes"), ("0BDP", "zero-bdp"), ("1.5p", "fraction"), ("-2p", "negative"),
                   ("100", "no-unit"), ("10Mbps", "rate-unit")]:
    case(f"link-buffer-{tag}", BASE.replace('buffer = "1BDP"', f'buffer = "{value}"'), "key:topology.bottleneck.buffer")
case("link-rate-number", BASE.replace('rate = "10Mbps"', "rate = 10000000"), "key:topology.bottleneck.rate")
case("link-rate-bool", BASE.replace('rate = "10Mbps"', "rate = true"), "key:topology.bottleneck.rate")
case("link-missing-rate", BASE.replace('rate = "10Mbps", ', ""), "key:topology.bottleneck.rate")
case("link-unknown-key", with_link("speed = 3"), "key:topology.bottleneck.speed")
case("link-loss-above-one", with_link('forward = { loss = { model = "bernoulli", p = 1.5 } }'),
     "key:topology.bottleneck.forward.loss.p")
case("link-loss-nan", with_link('forward = { loss = { model = "bernoulli", p = nan } }'),
     "key:topology.bottleneck.forward.loss.p")
case("link-loss-inf", with_link('forward = { loss = { model = "bernoulli", p = inf } }'),
     "key:topology.bottleneck.forward.loss.p")
case("link-loss-unknown-model", with_link('forward = { loss = { model = "burst", p = 0.1 } }'),
     "key:topology.bottleneck.forward.loss.model")
case("link-jitter-negative", with_link('forward = { jitter = { distribution = "uniform", max = "-1ms" } }'),
     "key:topology.bottleneck.forward.jitter.max")
case("link-jitter-drift-too-fast",
     with_link('forward = { jitter = { distribution = "drift", min = "0ms", max = "2ms", interval = "1ms" } }'),
     "key:topology.bottleneck.forward.jitter.interval")
case("link-jitter-harq-certain-failure", with_link('forward = { jitter = { distribution = "harq", p = 1.0 } }'),
     "key:topology.bottleneck.forward.jitter.p")
case("link-jitter-harq-empty-slot", with_link('forward = { jitter = { distribution = "harq", slot = "0ms" } }'),
     "key:topology.bottleneck.forward.jitter.slot")
case("link-jitter-harq-slot-per-packet",
     with_link('forward = { jitter = { distribution = "harq", per = "packet", slot = "1ms" } }'),
     "key:topology.bottleneck.forward.jitter.slot")
case("link-jitter-harq-unknown-unit", with_link('forward = { jitter = { distribution = "harq", per = "tti" } }'),
     "key:topology.bottleneck.forward.jitter.per")
case("link-jitter-key-of-another-kind", with_link('forward = { jitter = { distribution = "uniform", max = "1ms", min = "0ms" } }'),
     "key:topology.bottleneck.forward.jitter.min")
case("link-trace-file-and-generator", with_link('forward = { trace = { file = "x.trace", cellular = {} } }'),
     "key:topology.bottleneck.forward.trace")
case("link-trace-missing-file", with_link('forward = { trace = { file = "no-such.trace" } }'),
     "key:topology.bottleneck.forward.trace.file")
case("link-trace-unknown-generator-key", with_link('forward = { trace = { cellular = { nr_speed = "1Gbps" } } }'),
     "key:topology.bottleneck.forward.trace.cellular.nr_speed")
case("link-trace-negative-rate", with_link('forward = { trace = { cellular = { lte_rate = "-5Mbps" } } }'),
     "key:topology.bottleneck.forward.trace.cellular.lte_rate")
case("link-trace-with-rate-schedule",
     with_link('forward = { trace = { cellular = {} }, rate_schedule = [{ at = "1s", rate = "1Mbps" }] }'),
     "key:topology.bottleneck.forward.trace")
case("flow-off-unsent-keep-without-rate", with_flow('on_time = "1s"\noff_time = "1s"\noff_unsent = "keep"'),
     "key:flows[0].off_unsent")
case("flow-restart-without-size", with_flow("restart = true"), "key:flows[0].restart")
case("flow-restart-on-off", with_flow('size = "10KB"\nrestart = true\non_time = "1s"\noff_time = "1s"'),
     "key:flows[0].restart")
case("flow-think-time-without-restart", with_flow('size = "10KB"\nthink_time = "1s"'), "key:flows[0].think_time")
case("flow-think-time-negative", with_flow('size = "10KB"\nrestart = true\nthink_time = "-1s"'),
     "key:flows[0].think_time")
case("flow-restart-not-bool", with_flow('size = "10KB"\nrestart = "yes"'), "key:flows[0].restart")
case("flows-udp-restart", BASE.replace('cc = "cubic"', 'protocol = "udp"\nrate = "1Mbps"\nrestart = true'),
     "key:flows[0].restart")
case("flow-off-unsent-unknown", with_flow('on_time = "1s"\noff_time = "1s"\noff_unsent = "later"'),
     "key:flows[0].off_unsent")
case("link-outage-zero", with_link('forward = { outages = [{ at = "1s", duration = "0s" }] }'),
     "key:topology.bottleneck.forward.outages[0].duration")
case("link-rate-schedule-unordered",
     with_link('forward = { rate_schedule = [{ at = "2s", rate = "1Mbps" }, { at = "1s", rate = "2Mbps" }] }'),
     "key:topology.bottleneck.forward.rate_schedule[1].at")
case("link-direction-array", with_link("forward = [1, 2]"), "key:topology.bottleneck.forward")

# ----- queue disciplines -----
case("queue-unknown-kind", with_link('queue = "sfq"'), "key:topology.bottleneck.queue")
case("queue-step-threshold-zero", with_link('queue = { kind = "step", threshold = "0p" }'),
     "key:topology.bottleneck.queue.threshold")
case("queue-step-threshold-missing", with_link('queue = "step"'), "key:topology.bottleneck.queue.threshold")
case("queue-step-threshold-above-buffer", with_link('queue = { kind = "step", threshold = "2BDP" }'),
     "key:topology.bottleneck.queue.threshold")
case("queue-threshold-on-red", with_link('queue = { kind = "red", threshold = "5p" }'),
     "key:topology.bottleneck.queue.threshold")
case("link-ecn-mark-threshold-removed", with_link('ecn_mark_threshold = "20p"'),
     "key:topology.bottleneck.ecn_mark_threshold")
case("queue-codel-interval-zero", with_link('queue = { kind = "codel", interval = "0s" }'),
     "key:topology.bottleneck.queue.interval")
case("queue-codel-target-zero", with_link('queue = { kind = "codel", target = "0s" }'),
     "key:topology.bottleneck.queue.target")
case("queue-red-mean-packet-zero", with_link('queue = { kind = "red", mean_packet_size = "0B" }'),
     "key:topology.bottleneck.queue.mean_packet_size")
case("queue-red-thresholds-reversed", with_link('queue = { kind = "red", min_th = "50p", max_th = "10p" }'),
     "key:topology.bottleneck.queue.max_th")
case("queue-red-max-p", with_link('queue = { kind = "red", max_p = 2.0 }'), "key:topology.bottleneck.queue.max_p")
case("queue-fq-quantum-tiny", with_link('queue = { kind = "fq_codel", quantum = "10B" }'),
     "key:topology.bottleneck.queue.quantum")
case("queue-fq-flows-zero", with_link('queue = { kind = "fq_codel", flows = 0 }'), "key:topology.bottleneck.queue.flows")
case("queue-codel-key-on-droptail", with_link('queue = { kind = "droptail", interval = "100ms" }'),
     "key:topology.bottleneck.queue.interval")
case("queue-array", with_link("queue = [1]"), "key:topology.bottleneck.queue")

# ----- the [simulation] table -----
for value, tag in [("0s", "zero"), ("-1s", "negative"), ("5", "no-unit"), ("forever", "word"), ("40y", "years")]:
    case(f"sim-duration-{tag}", BASE.replace('duration = "2s"', f'duration = "{value}"'), "key:simulation.duration")
case("sim-duration-missing", BASE.replace('duration = "2s"\n', ""), "key:simulation.duration")
case("sim-sample-interval-zero", with_sim('sample_interval = "0s"'), "key:simulation.sample_interval")
case("sim-sample-interval-1ns", with_sim('sample_interval = "1ns"'), "key:simulation.sample_interval")
case("sim-31-years", BASE.replace('duration = "2s"', 'duration = "270000h"\nsample_interval = "1h"'),
     "key:simulation.duration")
case("sim-seed-negative", with_sim("seed = -1"), "key:simulation.seed")
case("sim-seed-float", with_sim("seed = 1.5"), "key:simulation.seed")
case("sim-seed-huge", with_sim("seed = 99999999999999999999"), "text:")
case("sim-as-array", BASE.replace('[simulation]\nduration = "2s"', 'simulation = ["2s", 1]'), "key:simulation")
case("sim-unknown-key", with_sim("speed = 3"), "key:simulation.speed")
case("sim-max-events-string", with_sim('max_events = "many"'), "key:simulation.max_events")
case("sim-capture-unknown-link", with_sim('capture = ["bottlenek"]'), "key:simulation.capture[0]")
case("sim-capture-bad-direction", with_sim('capture = ["bottleneck:up"]'), "key:simulation.capture[0]")
case("sim-capture-not-a-list", with_sim('capture = "bottleneck"'), "key:simulation.capture")
case("sim-capture-too-large", BASE.replace('duration = "2s"', 'duration = "10000s"\nsample_interval = "10s"\ncapture = ["bottleneck"]'),
     "key:simulation.capture")

# ----- [tcp] -----
for line, key in [('mss = "0B"', "tcp.mss"), ('mss = "1MB"', "tcp.mss"), ('mss = 1448', "tcp.mss"),
                  ("initial_window = 0", "tcp.initial_window"), ("initial_window = 100000", "tcp.initial_window"),
                  ('recovery = "tahoe"', "tcp.recovery"), ('min_rto = "0s"', "tcp.min_rto"),
                  ('max_rto = "100ms"', "tcp.max_rto"), ('initial_rto = "0s"', "tcp.initial_rto"),
                  ('initial_rto = "200s"', "tcp.initial_rto"), ("delayed_ack_count = 0", "tcp.delayed_ack_count"),
                  ('profile = "freebsd"', "tcp.profile"), ("initial_ssthresh = 1", "tcp.initial_ssthresh"),
                  ("cwnd_clamp = 1", "tcp.cwnd_clamp"), ('rto_restart = "sometimes"', "tcp.rto_restart"),
                  ("quick_acks = 5000", "tcp.quick_acks"), ('rto_formula = "bsd"', "tcp.rto_formula"),
                  ('receive_window = "100B"', "tcp.receive_window"),
                  ('receive_window = "2GB"', "tcp.receive_window"), ('ack_delay = "sometimes"', "tcp.ack_delay"),
                  ("duplicate_threshold = 0", "tcp.duplicate_threshold"), ("ecn = 1", "tcp.ecn"), ("speed = 1", "tcp.speed")]:
    tag = line.split("=")[0].strip() + "-" + line.split("=")[1].strip().strip('"').replace(".", "_")
    case(f"tcp-{tag}", with_tcp(line), f"key:{key}")

case("tcp-rack-without-sack", with_tcp('recovery = "newreno"\nrack = true'), "key:tcp.rack")
case("tcp-probe-without-sack", with_tcp('recovery = "reno"\ntail_loss_probe = true'), "key:tcp.tail_loss_probe")
case("tcp-every-ack-restart-without-rack", with_tcp('rack = false\nrto_restart = "every_ack"'), "key:tcp.rto_restart")

# ----- flows -----
case("flows-none", BASE[: BASE.index("[[flows]]")], "key:flows")
case("flows-unknown-algorithm", BASE.replace('cc = "cubic"', 'cc = "tahoe"'), "key:flows[0].cc")
case("flows-algorithm-number", BASE.replace('cc = "cubic"', "cc = 3"), "key:flows[0].cc")
case("flows-tcp-without-cc", BASE.replace('cc = "cubic"', 'count = 2'), "key:flows[0].cc")
case("flows-tcp-profile", with_flow('tcp = { profile = "ns2" }'), "key:flows[0].tcp.profile")
case("flows-count-zero", with_flow("count = 0"), "key:flows[0].count")
case("flows-count-negative", with_flow("count = -3"), "key:flows[0].count")
case("flows-count-huge", with_flow("count = 1000000"), "key:flows")
case("flows-param-out-of-range", with_flow("params = { beta = 2.0 }"), "key:flows[0].params")
case("flows-param-unknown", with_flow("params = { gamma = 1 }"), "key:flows[0].params")
case("flows-param-wrong-type", with_flow('params = { beta = "high" }'), "key:flows[0].params")
case("flows-param-nan", with_flow("params = { beta = nan }"), "key:flows[0].params.beta")
case("flows-start-negative", with_flow('start = "-1s"'), "key:flows[0].start")
case("flows-size-zero", with_flow('size = "0B"'), "key:flows[0].size")
case("flows-size-no-unit", with_flow("size = 1000"), "key:flows[0].size")
case("flows-rate-zero", with_flow('rate = "0bps"'), "key:flows[0].rate")
case("flows-on-without-off", with_flow('on_time = "1s"'), "key:flows[0].on_time")
case("flows-from-on-dumbbell", with_flow('from = "r0"'), "key:flows[0].from")
case("flows-as-table", BASE.replace('[[flows]]\ncc = "cubic"', '[flows]\ncc = "cubic"'), "key:flows")
case("flows-entry-array", 'flows = [["cubic"]]\n' + BASE[: BASE.index("[[flows]]")], "key:flows[0]")
case("flows-udp-without-rate", BASE.replace('cc = "cubic"', 'protocol = "udp"'), "key:flows[0].rate")
case("flows-udp-with-cc", BASE.replace('cc = "cubic"', 'protocol = "udp"\nrate = "1Mbps"\ncc = "cubic"'), "key:flows[0].cc")
case("flows-udp-packet-tiny", BASE.replace('cc = "cubic"', 'protocol = "udp"\nrate = "1Mbps"\npacket_size = "10B"'),
     "key:flows[0].packet_size")
case("flows-udp-petabit", BASE.replace('cc = "cubic"', 'protocol = "udp"\nrate = "1000000Gbps"'), "key:simulation.duration")
case("flows-onoff-nanoseconds", with_flow('on_time = "1ns"\noff_time = "1ns"').replace('"2s"', '"600s"'),
     "key:simulation.duration")
case("flows-protocol-unknown", BASE.replace('cc = "cubic"', 'protocol = "sctp"'), "key:flows[0].protocol")

# ----- topologies -----
case("topology-missing", BASE.replace('[topology]\nkind = "dumbbell"\n' + LINK + "\n", ""), "key:topology")
case("topology-unknown-kind", BASE.replace('kind = "dumbbell"', 'kind = "ring"'), "key:topology.kind")
case("topology-dumbbell-without-bottleneck", BASE.replace(LINK + "\n", ""), "key:topology.bottleneck")
case("topology-chain-one-router", BASE.replace('kind = "dumbbell"\n' + LINK, 'kind = "chain"\nrouters = 1'),
     "key:topology.routers")
case("topology-chain-unknown-node",
     BASE.replace('kind = "dumbbell"\n' + LINK,
                  'kind = "chain"\nrouters = 2\nhops = [{ rate = "10Mbps", delay = "5ms" }]')
     .replace(FLOW, FLOW + '\nfrom = "r0"\nto = "r7"'), "key:flows[0].to")
case("topology-custom-unknown-node",
     BASE.replace('kind = "dumbbell"\n' + LINK,
                  'kind = "custom"\nnodes = ["a", "b"]\nlinks = [{ from = "a", to = "c", rate = "1Mbps", delay = "1ms" }]')
     .replace(FLOW, FLOW + '\nfrom = "a"\nto = "b"'), "key:topology.links[0].to")
case("topology-custom-unreachable",
     BASE.replace('kind = "dumbbell"\n' + LINK,
                  'kind = "custom"\nnodes = ["a", "b", "c"]\nlinks = [{ from = "a", to = "b", rate = "1Mbps", delay = "1ms" }]')
     .replace(FLOW, FLOW + '\nfrom = "a"\nto = "c"'), "key:flows[0].to")
case("topology-bdp-rtt-zero", BASE.replace('kind = "dumbbell"', 'kind = "dumbbell"\nbdp_rtt = "0s"'), "key:topology.bdp_rtt")
case("topology-hops-on-dumbbell", BASE.replace('kind = "dumbbell"', 'kind = "dumbbell"\nrouters = 3'), "key:topology.routers")

# ----- whole files -----
case("file-empty", "", "key:simulation")
case("file-not-toml", "this is not a scenario\n[[[", "text:is not valid TOML")
case("file-json", '{"simulation": {"duration": "1s"}}\n', "text:is not valid TOML")
case("file-duplicate-key", BASE.replace(SIM, SIM + '\nduration = "3s"'), "text:is not valid TOML")
case("file-datetime", "when = 1979-05-27T07:32:00Z\n" + BASE, "key:when")
case("file-deep-nesting", "x = " + "[" * 3000 + "]" * 3000 + "\n" + BASE, "text:too deeply")
case("file-binary", bytes(range(256)) * 4, "text:not UTF-8")
case("file-utf16", BASE.encode("utf-16"), "text:UTF-16")
case("file-latin1-comment", BASE.encode() + "# caf\u00e9\n".encode("latin-1"), "text:not UTF-8")
case("file-nul-bytes", BASE.encode() + b"\x00\x00", "text:is not valid TOML")
case("file-huge-string", BASE.replace('name = "bad"', 'name = "' + "x" * 200_000 + '"'), "ok:")
case("file-many-flow-entries", BASE + "".join(f'[[flows]]\ncc = "reno"\ncount = 90\nstart = "{i % 7}ms"\n'
                                              for i in range(12_000)), "key:flows")
case("name-dotdot", BASE.replace('name = "bad"', 'name = ".."'), "ok:")
case("name-path", BASE.replace('name = "bad"', 'name = "../../tmp/escape"'), "ok:")

# ----- data-center fabrics and traffic patterns -----
FAT_TREE = BASE.replace('kind = "dumbbell"\n' + LINK, 'kind = "fat_tree"\nk = 4\naccess = { rate = "10Gbps", delay = "1us" }') \
    .replace(FLOW, FLOW + '\nfrom = "h0"\nto = "h15"')
LEAF_SPINE = FAT_TREE.replace('kind = "fat_tree"\nk = 4', 'kind = "leaf_spine"\nleaves = 4\nspines = 2\nhosts_per_leaf = 4')
TRAFFIC = FAT_TREE.replace("[[flows]]\n" + FLOW + '\nfrom = "h0"\nto = "h15"\n', '[[traffic]]\ncc = "cubic"\n')
case("fabric-k-odd", FAT_TREE.replace("k = 4", "k = 5"), "key:topology.k")
case("fabric-k-missing", FAT_TREE.replace("k = 4\n", ""), "key:topology.k")
case("fabric-k-huge", FAT_TREE.replace("k = 4", "k = 4000000000"), "key:topology.k")
case("fabric-k-on-dumbbell", BASE.replace(LINK, LINK + "\nk = 4"), "key:topology.k")
case("fabric-access-missing", FAT_TREE.replace('access = { rate = "10Gbps", delay = "1us" }\n', ""), "key:topology.access")
case("fabric-host-unknown", FAT_TREE.replace('"h15"', '"h16"'), "key:flows.0.to")
case("fabric-oversubscription-zero", FAT_TREE.replace("k = 4", "k = 4\noversubscription = 0"),
     "key:topology.oversubscription")
case("fabric-routing-unknown", FAT_TREE.replace("k = 4", 'k = 4\nrouting = "random"'), "key:topology.routing")
case("fabric-zero-spines", LEAF_SPINE.replace("spines = 2", "spines = 0"), "key:topology.spines")
case("fabric-leaf-spine-too-many-hosts", LEAF_SPINE.replace("hosts_per_leaf = 4", "hosts_per_leaf = 4000000"),
     "key:topology.hosts_per_leaf")
case("traffic-pattern-unknown", TRAFFIC.replace('[[traffic]]', '[[traffic]]\npattern = "shuffle"'), "key:traffic.0.pattern")
case("traffic-incast-every-host", TRAFFIC.replace('[[traffic]]', '[[traffic]]\npattern = "incast"\nsenders = 16'),
     "key:traffic.0.senders")
case("traffic-poisson-load-above-one",
     TRAFFIC.replace('[[traffic]]', '[[traffic]]\npattern = "poisson"\nload = 1.5\nsizes = "web_search"'), "key:traffic.0.load")
case("traffic-all-to-all-too-many", TRAFFIC.replace("k = 4", "k = 48").replace('[[traffic]]', '[[traffic]]\npattern = "all_to_all"'),
     "key:traffic.0")
case("traffic-on-dumbbell", BASE + '[[traffic]]\npattern = "permutation"\ncc = "cubic"\n', "key:traffic.0.hosts")

# ----- valid but suspicious: they run, with a warning naming the key -----
case("warn-flow-starts-after-end", with_flow('start = "5s"'), "warn:flows[0].start")
case("warn-exact-rdc-without-stamps", with_tcp('ack_delay = "exact_rdc"'), "warn:tcp.ack_delay")


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    lines = ["# Each scenario here and what tcplab must answer: key = the key its error names,", "# text = a fragment of its",
             "# file-level error, warn = the key of a warning on a run that succeeds, ok = a run that succeeds.", ""]
    for name, (text, expect) in sorted(CASES.items()):
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        (OUT / f"{name}.toml").write_bytes(data)
        kind, _, value = expect.partition(":")
        # Keys as messages write them since list positions follow --set's style (flows.0.cc).
        value = re.sub(r"\[(\d+)\]", r".\1", value)
        lines.append(f'"{name}.toml" = {{ {kind} = "{value}" }}')
    (OUT / "expected.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(CASES)} scenarios in {OUT}")


if __name__ == "__main__":
    main()
