"""The Python API: run, overrides, results, saving, plots."""

import pandas as pd
import pytest

import tcplab


def test_run_returns_tables_with_one_row_per_flow(quickstart):
    result = tcplab.run(quickstart, duration="3s")
    assert list(result.flows["name"]) == ["cubic-0", "cubic-1", "newreno-2"]
    assert list(result.flows["cc"]) == ["cubic", "cubic", "newreno"]
    assert result.summary["simulated_seconds"] == pytest.approx(3.0)
    assert result.summary["tcplab_version"] == tcplab.__version__
    # The bottleneck carried nearly its 50 Mbit/s once the flows were up.
    bottleneck = result.links[(result.links["link"] == "bottleneck") & (result.links["direction"] == "forward")].iloc[0]
    assert bottleneck["rate_bps"] == 50_000_000
    assert bottleneck["utilization"] > 0.8
    # Time series: every flow every 50 ms from 0 to 3 s inclusive, with names.
    assert set(result.timeseries["name"]) == {"cubic-0", "cubic-1", "newreno-2"}
    assert len(result.timeseries) == 3 * 61
    # The NewReno flow starts at 2 s: no window before that.
    late = result.timeseries[result.timeseries["name"] == "newreno-2"]
    assert late[late["time_s"] < 2.0]["cwnd_bytes"].isna().all()
    assert late[late["time_s"] > 2.1]["cwnd_bytes"].notna().all()


def test_overrides_by_keyword_and_dotted_keys(quickstart):
    result = tcplab.run(quickstart, duration="2s", topology__bottleneck__rate="10Mbps", set={"flows.1.cc": "reno"})
    assert result.links["rate_bps"].iloc[0] == 10_000_000
    assert list(result.flows["cc"]) == ["cubic", "cubic", "reno"]


def test_a_dict_scenario_runs():
    scenario = {
        "simulation": {"duration": "1s"},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "5Mbps", "delay": "10ms"}},
        "flows": [{"cc": "reno", "size": "100KB"}],
    }
    result = tcplab.run(scenario)
    flow = result.flows.iloc[0]
    assert flow["bytes_delivered"] == 100_000
    assert 0 < flow["completion_time_s"] < 1.0


def test_restarting_flows_report_one_row_per_completed_transfer():
    scenario = {
        "simulation": {"duration": "5s"},
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "5Mbps", "delay": "10ms"}},
        "flows": [{"cc": "reno", "count": 2, "size": "50KB", "restart": True, "think_time": "200ms"}],
    }
    result = tcplab.run(scenario)
    transfers = result.transfers
    assert list(transfers.columns) == ["flow_id", "name", "start_s", "end_s", "duration_s"]
    for flow_id, rows in transfers.groupby("flow_id"):
        # Back to back: each transfer starts the think time after the previous one's completion.
        gaps = rows["start_s"].iloc[1:].to_numpy() - rows["end_s"].iloc[:-1].to_numpy()
        assert len(rows) >= 5 and gaps == pytest.approx(0.2)
        delivered = result.flows.set_index("flow_id").loc[flow_id, "bytes_delivered"]
        assert len(rows) * 50_000 <= delivered < (len(rows) + 1) * 50_000
    assert (transfers["duration_s"] > 0).all()


def test_same_seed_gives_byte_identical_files_and_another_seed_does_not(quickstart, tmp_path):
    spread = {"flows.0.start_spread": "500ms"}
    outputs = []
    for name, seed in [("a", 4), ("b", 4), ("c", 5)]:
        result = tcplab.run(quickstart, duration="3s", seed=seed, set=spread)
        outputs.append({p.name: p.read_bytes() for p in result.save(tmp_path / name)})
    a, b, c = outputs
    assert set(a) == {"flows.parquet", "links.parquet", "timeseries.parquet", "queues.parquet", "events.parquet", "summary.json", "scenario.toml"}
    assert a == b
    assert a["flows.parquet"] != c["flows.parquet"]
    assert a["timeseries.parquet"] != c["timeseries.parquet"]


def test_saved_tables_read_back(quickstart, tmp_path):
    result = tcplab.run(quickstart, duration="1s")
    result.save(tmp_path)
    flows = pd.read_parquet(tmp_path / "flows.parquet")
    pd.testing.assert_frame_equal(flows, result.flows)
    text = (tmp_path / "scenario.toml").read_text()
    # The stored scenario has every default written out, and runs again to the same result.
    assert "beta = 0.7" in text and "mss = \"1448B\"" in text
    again = tcplab.run(text.split("\n", 1)[1])
    pd.testing.assert_frame_equal(again.flows, result.flows)


def test_plot_returns_a_figure_and_saves_png(quickstart, tmp_path):
    result = tcplab.run(quickstart, duration="2s")
    figure = result.plot(tmp_path / "overview.png")
    assert len(figure.axes) == 4
    assert (tmp_path / "overview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_progress_bar_on_a_short_run_is_harmless(quickstart):
    result = tcplab.run(quickstart, duration="1s", progress=True)
    assert len(result.flows) == 3


def test_algorithms_list_parameters_with_defaults():
    registry = {a["name"]: a for a in tcplab.algorithms()}
    assert {"reno", "newreno", "cubic"} <= set(registry)
    beta = next(p for p in registry["cubic"]["params"] if p["name"] == "beta")
    assert beta["default"] == "0.7" and beta["range"] == "0.1 to 0.99"


@pytest.mark.parametrize(
    ("override", "key", "fragment"),
    [
        ({"topology__bottleneck__rate": "50MBps"}, "topology.bottleneck.rate", "is in bytes ('MBps')"),
        ({"topology__bottleneck__rate": "-5Mbps"}, "topology.bottleneck.rate", "is not positive"),
        ({"set": {"flows.0.cc": "vegas9"}}, "flows.0.cc", "unknown algorithm 'vegas9'"),
        ({"set": {"flows.0.params": {"beta": 3}}}, "flows.0.params", "beta = 3 is out of range"),
        ({"duration": 5}, "simulation.duration", "has no unit"),
        ({"set": {"flows.7.cc": "reno"}}, "flows.7.cc", "has 2 entries"),
    ],
)
def test_bad_input_raises_scenario_error_naming_the_key(quickstart, override, key, fragment):
    with pytest.raises(tcplab.ScenarioError) as info:
        tcplab.run(quickstart, **override)
    text = str(info.value)
    assert text.startswith(key), text
    assert fragment in text, text


def test_validate_returns_the_resolved_scenario(quickstart):
    resolved = tcplab.validate(quickstart)
    assert "recovery = \"sack\"" in resolved
    assert "hystart = true" in resolved


@pytest.mark.parametrize(
    ("queue", "key", "fragment"),
    [
        ("blue", "topology.bottleneck.queue", "unknown variant `blue`"),
        ({"kind": "red", "max_p": 1.5}, "topology.bottleneck.queue.max_p", "outside (0, 1]"),
        ({"kind": "codel", "max_p": 0.1}, "topology.bottleneck.queue.max_p", "only applies to red queues"),
        ({"kind": "red", "min_th": "20p", "max_th": "10p"}, "topology.bottleneck.queue.max_th", "must be above min_th"),
        ({"kind": "fq_codel", "flows": 0}, "topology.bottleneck.queue.flows", "outside 1 to 65536"),
        ({"kind": "pie", "beta": 3.0}, "topology.bottleneck.queue.beta", "outside 0 to 2"),
        ({"kind": "red", "tupdate": "15ms"}, "topology.bottleneck.queue.tupdate", "only applies to pie queues"),
        ({"kind": "step"}, "topology.bottleneck.queue.threshold", "is required for a step queue"),
        ({"kind": "step", "threshold": "0p"}, "topology.bottleneck.queue.threshold", "must be more than 0"),
    ],
)
def test_bad_queue_settings_name_the_key(quickstart, queue, key, fragment):
    with pytest.raises(tcplab.ScenarioError) as info:
        tcplab.run(quickstart, duration="1s", set={"topology.bottleneck.queue": queue})
    text = str(info.value)
    assert text.startswith(key) and fragment in text, text


def test_queue_disciplines_run_and_resolve_their_defaults(quickstart):
    for queue in ["red", "codel", "fq_codel", "pie", {"kind": "red", "ecn": True, "gentle": False}]:
        result = tcplab.run(quickstart, duration="2s", set={"topology.bottleneck.queue": queue})
        bottleneck = result.links.iloc[0]
        assert bottleneck["utilization"] > 0.5
    resolved = tcplab.validate(quickstart, topology__bottleneck__queue="codel")
    assert 'kind = "codel"' in resolved and 'target = "5ms"' in resolved and 'interval = "100ms"' in resolved
    resolved = tcplab.validate(quickstart, topology__bottleneck__queue="pie")
    assert 'target = "15ms"' in resolved and 'tupdate = "15ms"' in resolved and 'max_burst = "150ms"' in resolved


def test_every_algorithm_runs_from_python(quickstart):
    for algorithm in tcplab.algorithms():
        result = tcplab.run(quickstart, duration="2s", set={"flows.0.cc": algorithm["name"], "flows.0.params": {}})
        assert result.flows["bytes_delivered"].iloc[0] > 0, algorithm["name"]


def test_rta_switch_events_reach_the_events_table(tmp_path):
    scenario = {
        "simulation": {"duration": "20s"},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "48ms", "buffer": "1BDP",
                           "forward": {"delay_schedule": [{"at": "5s", "delay": "850ms"}]}},
            "access": {"rate": "1Gbps", "delay": "1ms", "buffer": "1000p"},
        },
        "tcp": {"min_rto": "1s"},
        "flows": [{"cc": "rta"}],
    }
    result = tcplab.run(scenario)
    assert list(result.events["event"]) == ["switch_to_hybla"]
    assert 5.0 < result.events["time_s"].iloc[0] < 7.0
    result.save(tmp_path)
    assert list(pd.read_parquet(tmp_path / "events.parquet")["name"]) == ["rta-0"]


def test_a_flow_is_not_started_before_its_start_and_running_after(quickstart):
    result = tcplab.run(quickstart, duration="3s")
    late = result.flows.loc[result.flows["start_s"] > 0].iloc[0]
    series = result.timeseries[result.timeseries["flow_id"] == late["flow_id"]]
    before = series[series["time_s"] < late["start_s"]]
    after = series[series["time_s"] >= late["start_s"]]
    assert len(before) and set(before["state"]) == {"not_started"}
    assert len(after) and "not_started" not in set(after["state"])
