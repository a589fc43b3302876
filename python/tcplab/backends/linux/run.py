"""One scenario on the machine's own kernel: namespaces for the hosts, the link emulator between
them, an endpoint process per host, and the same tables the simulator returns.

The order matters for cleanup. The emulator creates the TUN devices (they live while it holds
them, so they vanish with this process however it ends); the namespaces come next and are
removed in ``finally``, after every endpoint process is killed; endpoint processes also die with
this process (PR_SET_PDEATHSIG). A SIGTERM that would end the process outright (Python's default)
first lets that clean-up run (``_cleanup_on_sigterm``). Whatever a SIGKILLed run leaves (empty
namespaces) is removed by ``tcplab lab cleanup``.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from tcplab import _core
from tcplab.backends.linux import bpf_load, build_directory, congestion_controls, lab, preflight
from tcplab.backends.linux.tables import build_result

ENDPOINT = Path(__file__).with_name("endpoint.py")
# Time zero is set this long after every endpoint reported ready: the emulator's thread and the
# endpoints' waits start before it.
START_MARGIN_S = 0.3
# How long past the end an endpoint may take to report before it counts as failed.
REPORT_GRACE_S = 10.0
# Send buffers large enough for tens of MB in flight (8 BDP at 1 Gbit/s x 40 ms is 40 MB).
SOCKET_BUFFERS = "4096 131072 67108864"


class EndpointFailed(RuntimeError):
    """An endpoint process died or reported an error; the message names its host and flow."""


class _Terminated(BaseException):
    """SIGTERM arrived during a run (see ``_cleanup_on_sigterm``)."""


@dataclass
class Endpoint:
    flow_id: int
    role: str
    host: lab.Host
    process: subprocess.Popen


def run_on_linux(scenario_json: str, progress: bool = False):
    """Runs the scenario (JSON text, overrides applied) with kernel TCP and tcplab's link
    emulator, and returns a ``Result`` whose summary says ``backend = "linux"``."""
    import tomllib

    preflight.check_machine()
    resolved_toml = _core.validate(scenario_json)
    scenario = tomllib.loads(resolved_toml)
    preflight.check_scenario(scenario, json.loads(scenario_json))
    # The signal guard outermost, so that the build directory is removed too before the process
    # ends by the signal.
    with _cleanup_on_sigterm(), build_directory.create() as directory:
        # Built (and their parameters checked) before anything is created.
        objects = {plan.algorithm: congestion_controls.prepare(plan, Path(directory))
                   for plan in congestion_controls.plan(scenario)}
        return _run_with(scenario, scenario_json, resolved_toml, objects, progress)


@contextmanager
def _cleanup_on_sigterm() -> Iterator[None]:
    """A SIGTERM during the run ends the process as it would have (killed by SIGTERM), but only
    after the run's clean-up: Python's default action ends the process at once, which would leave
    the namespaces and any registered BPF algorithm behind. Only where that default is in place
    and signals can be handled (the main thread): a caller with a handler of its own (the CLI
    turns SIGTERM into an interrupt) keeps it."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def terminate(signum, frame):
        raise _Terminated

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    except _Terminated:
        # The run's `finally` has removed what it made; now end as the signal would have.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        raise
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run_with(scenario: dict, scenario_json: str, resolved_toml: str, objects: dict[str, Path], progress: bool):
    run_id = secrets.token_hex(3)[:5]
    emulator = _core.LinkEmulator(scenario_json, f"tl{run_id}")
    endpoints: list[Endpoint] = []
    loaded: list[bpf_load.Loaded] = []
    try:
        for algorithm, built in objects.items():
            loaded.append(bpf_load.register(algorithm, built))
        hosts = {node: lab.Host(node, device, address, lab.namespace_name(run_id, node))
                 for node, device, address in emulator.hosts()}
        flows = emulator.flows()
        duration, interval = (ns / 1e9 for ns in emulator.timing())
        for flow in flows:
            _set_up_hosts(hosts[flow["source"]], hosts[flow["sink"]], flow)
            for role, end in (("receiver", "sink"), ("sender", "source")):
                config = _endpoint_config(flow, role, hosts[flow["sink"]].address, duration, interval, scenario)
                endpoints.append(Endpoint(flow["flow_id"], role, hosts[flow[end]], _start_endpoint(hosts[flow[end]], config)))
        for endpoint in endpoints:
            _await_ready(endpoint)
        epoch = time.monotonic() + START_MARGIN_S
        with _emulating(emulator, epoch, duration):
            for endpoint in endpoints:
                endpoint.process.stdin.write(f"{epoch!r}\n")
                endpoint.process.stdin.flush()
            _wait_for_end(endpoints, epoch + duration, duration, progress)
            reports = {(e.flow_id, e.role): _report(e, epoch + duration + REPORT_GRACE_S) for e in endpoints}
        links = emulator.take_results()
        algorithm_events = _algorithm_events(loaded, flows, epoch)
    finally:
        for endpoint in endpoints:
            if endpoint.process.poll() is None:
                endpoint.process.kill()
        emulator.close()
        lab.remove(run_id)
        for registration in loaded:
            bpf_load.unregister(registration.name)
    return build_result(scenario, resolved_toml, flows, reports, links, duration, algorithm_events)


def _algorithm_events(loaded: list[bpf_load.Loaded], flows: list[dict], epoch: float) -> list[tuple[float, int, str]]:
    """The BPF algorithms' events as (run time in s, flow id, name): an event's port is its
    flow's receiver port, and its time CLOCK_MONOTONIC, the clock of ``epoch``."""
    flow_of_port = {_core.FLOW_PORT_BASE + flow["flow_id"]: flow["flow_id"] for flow in flows}
    return [(time_ns / 1e9 - epoch, flow_of_port[port], name)
            for registration in loaded for time_ns, port, _, name in bpf_load.events(registration)
            if port in flow_of_port]


@contextmanager
def _emulating(emulator: Any, epoch: float, duration: float) -> Iterator[None]:
    """The emulator's loop on a thread of its own (real-time priority, the GIL released), from
    time zero until the run's end or until stopped."""
    failure: list[BaseException] = []

    def loop() -> None:
        try:
            emulator.run(int(epoch * 1e9), int(duration * 1e9))
        except BaseException as error:  # reported on the calling thread
            failure.append(error)

    thread = threading.Thread(target=loop, name="tcplab-link-emulator", daemon=True)
    thread.start()
    try:
        yield
    finally:
        emulator.stop()
        thread.join()
    if failure:
        raise failure[0]


def _set_up_hosts(sender: lab.Host, receiver: lab.Host, flow: dict) -> None:
    """Both hosts of a flow, their TCP set from the flow's [tcp] options. The MTU is tcplab's MSS
    plus its header bytes (IP, TCP and, with timestamps, their 12 option bytes), so the kernel's
    full segments are as large as the simulator's. Every host's default algorithm is reno, which
    keeps no pacing state: a socket is created with the default and switched to its flow's
    algorithm before it connects, and one that started as bbr (this machine's default) would keep
    pacing after switching to cubic. (A namespace other than the first may only make an algorithm
    of net.ipv4.tcp_allowed_congestion_control its default, and reno always is.) Route attributes
    carry what Linux sets per destination: the initial window, the minimum RTO and (without
    delayed ACKs) quick ACKs."""
    tcp = flow["protocol"] == "tcp"
    mtu = flow["mss"] + flow["header_bytes"] if tcp else max(flow["datagram_bytes"], 576)
    common = {"net.ipv4.tcp_no_metrics_save": "1", "net.ipv4.tcp_congestion_control": "reno"}
    if tcp:
        common.update({
            "net.ipv4.tcp_ecn": "1" if flow["ecn"] else "0",
            "net.ipv4.tcp_timestamps": "1" if flow["timestamps"] else "0",
            "net.ipv4.tcp_sack": "1" if flow["sack"] else "0",
            "net.ipv4.tcp_wmem": SOCKET_BUFFERS,
            # The buffer whose window share is the flow's receive window (linux_ack.rs).
            "net.ipv4.tcp_rmem": f"4096 131072 {max(_core.linux_receive_buffer(flow['receive_window']), 131072)}",
        })
    lab.set_up_host(receiver, mtu, common)
    lab.set_up_host(sender, mtu, common)
    if tcp:
        rto_min_ms = max(round(flow["min_rto_ns"] / 1e6), 1)
        lab.add_route(sender, receiver.address, ["initcwnd", str(flow["initial_window"]), "rto_min", f"{rto_min_ms}ms"])
        if not flow["delayed_ack"]:
            lab.add_route(receiver, sender.address, ["quickack", "1"])


def _endpoint_config(flow: dict, role: str, receiver_address: str, duration: float, interval: float,
                     scenario: dict) -> dict:
    on_off = flow["on_off_ns"]
    return {
        "role": role,
        "protocol": flow["protocol"],
        "cc": congestion_controls.kernel_name(flow["cc"]) if flow["protocol"] == "tcp" else None,
        # The receiving socket runs the flow's algorithm where it changes what a receiver does.
        "receiver_cc": congestion_controls.kernel_name(flow["cc"])
        if flow["protocol"] == "tcp" and flow["cc"] in congestion_controls.RECEIVER_ALGORITHMS else None,
        "peer": receiver_address,
        "port": _core.FLOW_PORT_BASE + flow["flow_id"],
        "start": flow["start_ns"] / 1e9,
        "stop": flow["stop_ns"] / 1e9 if flow["stop_ns"] is not None else None,
        "duration": duration,
        "sample_interval": interval,
        "size": flow.get("size_bytes"),
        "rate_bps": flow["rate_bps"],
        "packet_size": flow["datagram_bytes"],
        "on_time": on_off[0] / 1e9 if on_off else None,
        "off_time": on_off[1] / 1e9 if on_off else None,
        "on_off_distribution": "exponential" if flow["on_off_exponential"] else "constant",
        "seed": scenario["simulation"]["seed"] * 1000 + flow["flow_id"],
    }


def _start_endpoint(host: lab.Host, config: dict) -> subprocess.Popen:
    command = ["ip", "netns", "exec", host.namespace, sys.executable, "-I", str(ENDPOINT), json.dumps(config)]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _describe(endpoint: Endpoint) -> str:
    return f"flow {endpoint.flow_id}'s {endpoint.role} (host {endpoint.host.node}, pid {endpoint.process.pid})"


def _await_ready(endpoint: Endpoint) -> None:
    line = endpoint.process.stdout.readline()
    if line.strip() != "ready":
        raise EndpointFailed(f"{_describe(endpoint)} did not start: {_failure_text(endpoint, line)}")


def _failure_text(endpoint: Endpoint, line: str) -> str:
    try:
        return json.loads(line)["error"]
    except (ValueError, KeyError, TypeError):
        endpoint.process.kill()
        return (line + endpoint.process.stderr.read()).strip()[-500:] or f"exit status {endpoint.process.wait()}"


def _wait_for_end(endpoints: list[Endpoint], end: float, duration: float, progress: bool) -> None:
    """Real time passes; an endpoint that dies before the end fails the run at once."""
    bar = _progress_bar(duration) if progress else None
    try:
        while time.monotonic() < end:
            for endpoint in endpoints:
                status = endpoint.process.poll()
                if status is not None and status != 0:
                    raise EndpointFailed(f"{_describe(endpoint)} exited with status {status} before the end of the run")
            if bar is not None:
                bar[0].update(bar[1], completed=min(duration, duration - (end - time.monotonic())))
            time.sleep(min(0.1, max(end - time.monotonic(), 0)))
    finally:
        if bar is not None:
            bar[0].stop()


def _report(endpoint: Endpoint, deadline: float) -> dict:
    """The endpoint's one line of JSON. Its standard input stays open meanwhile: an endpoint
    takes that closing as the orchestrator's end and exits at once."""
    # poll, not select: a run of several hundred flows has descriptors above select's 1024.
    waiting = select.poll()
    waiting.register(endpoint.process.stdout, select.POLLIN)
    if not waiting.poll(max(deadline - time.monotonic(), 0.1) * 1000):
        raise EndpointFailed(f"{_describe(endpoint)} did not report within {REPORT_GRACE_S:.0f} s of the end")
    line = endpoint.process.stdout.readline()
    try:
        report = json.loads(line)
    except ValueError:
        report = {"error": f"no report (exit status {endpoint.process.wait()}): {endpoint.process.stderr.read()[-500:]}"}
    if "error" in report:
        raise EndpointFailed(f"{_describe(endpoint)}: {report['error']}")
    return report


def _progress_bar(duration: float):
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(TextColumn("running on Linux"), BarColumn(),
                        TextColumn("{task.completed:.1f} / {task.total:.1f} s"), TimeRemainingColumn(), transient=True)
    task = progress.add_task("run", total=duration)
    progress.start()
    return progress, task
