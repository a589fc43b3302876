"""The Python API answers bad calls with tcplab.ScenarioError naming the argument or key, accepts
what NumPy-driven code passes, and warns about valid but suspicious scenarios."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import tcplab

QUICK = {"simulation.duration": "3s"}  # the quickstart's last flow starts at 2 s


def _error(call) -> tcplab.ScenarioError:
    with pytest.raises(tcplab.ScenarioError) as info:
        call()
    return info.value


def test_the_error_text_is_the_message_with_its_key_apart(quickstart):
    error = _error(lambda: tcplab.validate(quickstart, set={"topology.bottleneck.rate": "fast"}))
    assert str(error).startswith("topology.bottleneck.rate: 'fast' is not a rate")
    assert error.key == "topology.bottleneck.rate"
    assert error.message.startswith("'fast' is not a rate")


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        (["simulation.duration=1s"], "expected a mapping of dotted keys"),
        ({1: "x"}, "keys are dotted strings"),
        ({"": 1}, "a part is empty"),
        ({"simulation..duration": "1s"}, "a part is empty"),
    ],
)
def test_set_must_be_a_mapping_of_dotted_keys(quickstart, overrides, fragment):
    error = _error(lambda: tcplab.run(quickstart, set=overrides))
    assert error.key == "set" and fragment in str(error)


def test_numpy_scalars_are_numbers(quickstart):
    result = tcplab.run(quickstart, seed=np.int64(3), set={**QUICK, "flows.0.count": np.int32(1), "tcp.ecn": np.bool_(True)})
    assert result.summary["seed"] == 3
    assert len(result.flows) == 2


@pytest.mark.parametrize("value", [float("nan"), float("inf"), np.float64("nan")])
def test_nan_and_infinity_name_their_key(quickstart, value):
    error = _error(lambda: tcplab.validate(quickstart, set={"flows.0.params": {"beta": value}}))
    assert error.key == "flows.0.params.beta" and "not a finite number" in str(error)


def test_file_errors_name_the_file_and_the_cause(tmp_path):
    assert "does not exist" in str(_error(lambda: tcplab.validate(tmp_path / "nothere.toml")))
    assert "does not exist" in str(_error(lambda: tcplab.validate("missing-scenario.tml")))
    assert "is a directory" in str(_error(lambda: tcplab.validate(tmp_path)))
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "caf\xe9"\n')
    assert "is not UTF-8 text: byte 0xe9 on line 1" in str(_error(lambda: tcplab.validate(latin)))
    assert "expected a TOML file path" in str(_error(lambda: tcplab.validate(42)))


def test_results_are_written_into_folders_only(quickstart, tmp_path):
    result = tcplab.run(quickstart, set=QUICK)
    a_file = tmp_path / "taken"
    a_file.write_text("mine")
    error = _error(lambda: result.save(a_file))
    assert error.key == "directory" and "is a file" in str(error)
    assert a_file.read_text() == "mine"
    figure_path = tmp_path / "new" / "deeper" / "overview.png"
    result.plot(figure_path)
    assert figure_path.is_file()


def test_suspicious_scenarios_warn_with_the_key(quickstart):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tcplab.validate(quickstart, set={"flows.1.start": "30s"})
    messages = [str(w.message) for w in caught if issubclass(w.category, tcplab.ScenarioWarning)]
    assert messages == ["flows.1.start: 30s is not before the end of the run (20s): the flow never starts"]


def test_an_unquoted_value_with_a_unit_gets_the_quoted_form_as_a_hint(tmp_path):
    scenario = tmp_path / "unquoted.toml"
    scenario.write_text('[simulation]\nduration = 10s\n[topology]\nkind = "dumbbell"\n'
                        'bottleneck = { rate = "10Mbps", delay = "10ms" }\n[[flows]]\ncc = "cubic"\n')
    with pytest.raises(tcplab.ScenarioError) as error:
        tcplab.validate(scenario)
    assert 'values with units are text in quotes: duration = "10s"' in str(error.value)


def test_rates_read_in_any_case_and_in_tc_units_and_zero_or_negative_alike(quickstart):
    for text in ["40mbps", "40MBPS", "40mbit", "40Mbit/s"]:
        resolved = tcplab.validate(quickstart, set={"topology.bottleneck.rate": text})
        assert 'rate = "40Mbps"' in resolved, text
    messages = []
    for text in ["-40Mbps", "0Mbps"]:
        with pytest.raises(tcplab.ScenarioError) as error:
            tcplab.validate(quickstart, set={"topology.bottleneck.rate": text})
        messages.append(str(error.value).replace(text, "X"))
    assert messages[0] == messages[1] and "is not positive" in messages[0]


def test_the_reference_simulators_refuse_fabrics_and_ecmp_by_key():
    # ns-2's and ns-3's routing takes one path by hop count: a fat tree's flows, spread over many
    # by ECMP, could not run there as they run on the simulator.
    fat_tree = Path(__file__).resolve().parent.parent / "scenarios" / "fat-tree-permutation.toml"
    with pytest.raises(tcplab.ScenarioError, match=r"^topology.kind: 'fat_tree' runs on the simulator only"):
        tcplab.run(fat_tree, backend="ns3")
    quickstart = Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml"
    with pytest.raises(tcplab.ScenarioError, match=r'^topology.routing: "ecmp" runs on the simulator only'):
        tcplab.run(quickstart, backend="ns3", topology__routing="ecmp")
