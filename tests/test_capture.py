"""Packet captures: the quickstart's bottleneck captured to pcap and read by tshark (Debian's
package, installed by scripts/test.sh): no expert errors, and every flow's TCP stream carries
exactly the bytes the flow sent across the link."""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

import tcplab

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"
MSS = 1448
SEGMENTS = 2000  # each flow sends 2000 full segments and completes well within the run


def tshark(*args: str) -> str:
    if shutil.which("tshark") is None:
        pytest.fail("tshark is missing: scripts/test.sh installs Debian's tshark")
    done = subprocess.run(["tshark", *args], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def test_a_capture_of_the_quickstart_reads_cleanly_in_tshark(tmp_path):
    scenario = tmp_path / "quickstart.toml"
    text = QUICKSTART.read_text()
    text = text.replace('sample_interval = "50ms"', 'sample_interval = "50ms"\ncapture = ["bottleneck"]')
    text = text.replace('count = 2', f'count = 2\nsize = "{SEGMENTS * MSS}B"')
    text = text.replace('start = "2s"', f'start = "2s"\nsize = "{SEGMENTS * MSS}B"')
    scenario.write_text(text)
    result = tcplab.run(scenario)
    result.save(tmp_path / "out")
    forward = tmp_path / "out" / "bottleneck-forward.pcap"
    assert (tmp_path / "out" / "bottleneck-reverse.pcap").exists()

    for pcap in (forward, tmp_path / "out" / "bottleneck-reverse.pcap"):
        errors = tshark("-r", str(pcap), "-Y", "_ws.expert.severity == error", "-T", "fields", "-e", "frame.number")
        assert errors.strip() == "", f"{pcap.name}: frames with expert errors: {errors.split()[:10]}"

    # Per TCP stream: payload bytes in all data segments, and the highest byte sent.
    fields = tshark("-r", str(forward), "-T", "fields", "-e", "tcp.srcport", "-e", "tcp.len", "-e", "tcp.nxtseq",
                    "-o", "tcp.relative_sequence_numbers:TRUE")
    sent = defaultdict(int)
    highest = defaultdict(int)
    for line in fields.splitlines():
        port, length, next_seq = line.split("\t")
        sent[int(port)] += int(length)
        highest[int(port)] = max(highest[int(port)], int(next_seq or 0))
    flows = result.flows.sort_values("flow_id")
    assert flows["completion_time_s"].notna().all(), "every transfer completes within the run"
    assert sorted(sent) == [10_000 + i for i in flows["flow_id"]]
    for flow_id, row in flows.set_index("flow_id").iterrows():
        port = 10_000 + flow_id
        # Relative sequence numbers start at 1 with the first segment: the stream spans the file.
        assert highest[port] - 1 == SEGMENTS * MSS == row["bytes_delivered"]
        # Everything the flow sent crossed the bottleneck except what its queue dropped.
        assert sent[port] == row["bytes_sent"] - row["packets_lost"] * MSS
    assert result.flows["packets_lost"].sum() > 0, "the capture covered losses and retransmissions"


def test_an_unknown_link_to_capture_is_named(tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(QUICKSTART.read_text().replace('sample_interval = "50ms"', 'sample_interval = "50ms"\ncapture = ["bottlenek"]'))
    with pytest.raises(tcplab.ScenarioError) as error:
        tcplab.run(scenario)
    assert error.value.key == "simulation.capture.0"
    assert "no link named 'bottlenek'; links: bottleneck, access-s0" in str(error.value)
