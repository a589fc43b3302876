"""Checks every engine beside the simulator makes alike: which link tables a scenario has, the
link features only tcplab's own engines model, and whether routing by hop count could take
another path than the simulator."""

from __future__ import annotations

from typing import Any

from tcplab._core import ScenarioError

# Link keys whose features only tcplab's own engines model.
LINK_FEATURES = ("jitter", "outages", "trace", "rate_schedule", "delay_schedule")


def check_links(scenario: dict[str, Any], engine: str, queue_kinds: tuple[str, ...], loss_mapping: str,
                queue_note: str = "", features: tuple[str, ...] = ()) -> list[tuple[str, dict[str, Any], Any]]:
    """Refuses captures, jitter, outages, traces, schedules (but the ``features`` the engine has),
    loss models other than Bernoulli and queue kinds the engine lacks, naming the key; returns each
    link (key, table, queue) for the engine's own checks. ``scenario`` is resolved."""
    if scenario["simulation"].get("capture"):
        raise ScenarioError(f"simulation.capture: the {engine} back-end writes no captures; remove the key")
    checked = []
    for key, link in links(scenario):
        for direction_key, direction in [(key, link)] + [(f"{key}.{d}", link[d]) for d in ("forward", "reverse") if d in link]:
            for feature in LINK_FEATURES:
                if direction.get(feature) and feature not in features:
                    raise ScenarioError(f"{direction_key}.{feature}: the {engine} back-end cannot express "
                                        f"{feature.replace('_', ' ')}s; remove the key to run on {engine}")
            loss = direction.get("loss")
            if loss and loss.get("model") != "bernoulli":
                raise ScenarioError(f"{direction_key}.loss.model: '{loss.get('model')}' cannot run on {engine} (the "
                                    f"back-end maps only \"bernoulli\", {loss_mapping})")
        queue = link.get("queue") or {}
        kind = queue.get("kind", "droptail") if isinstance(queue, dict) else queue
        if kind not in queue_kinds:
            raise ScenarioError(f"{key}.queue.kind: '{kind}' cannot run on {engine}{queue_note}; use "
                                + " or ".join(f'"{k}"' for k in queue_kinds))
        checked.append((key, link, queue))
    return checked


def check_single_path(scenario: dict[str, Any], engine: str) -> None:
    """Refuses the data-center fabrics and ECMP routing: the reference simulators' global routing
    takes one path per destination by hop count, so they could not carry the simulator's
    per-flow paths (docs/datacenter.md)."""
    topology = scenario["topology"]
    if topology.get("kind") in ("fat_tree", "leaf_spine"):
        raise ScenarioError(f"topology.kind: '{topology['kind']}' runs on the simulator only: {engine}'s routing "
                            "takes one path by hop count and the fabric's flows spread over many (ECMP)")
    if topology.get("routing") == "ecmp":
        raise ScenarioError(f"topology.routing: \"ecmp\" runs on the simulator only: {engine}'s routing takes one "
                            "path by hop count; use \"single\"")


def check_routes(network: dict[str, Any], engine: str) -> None:
    """Refuses a network in which a flow's data or ACKs have two paths of fewest hops: ns-2 and
    ns-3's global routing go by hop count alone, the simulator then by propagation delay, so they
    could take different paths."""
    neighbours: dict[int, list[int]] = {}
    for channel in network["channels"]:
        neighbours.setdefault(channel["from"], []).append(channel["to"])
    names = [node["name"] for node in network["nodes"]]
    for flow in network["flows"]:
        for source, destination in ((flow["source"], flow["sink"]), (flow["sink"], flow["source"])):
            if shortest_paths(neighbours, source, destination) > 1:
                raise ScenarioError(
                    f"topology.links: {names[source]} reaches {names[destination]} (flow {flow['name']}) over more than "
                    f"one path of fewest hops; {engine} routes by hops alone and could take another path than the "
                    "simulator, which prefers the least delay: remove a link or lengthen one path")


def shortest_paths(neighbours: dict[int, list[int]], source: int, destination: int) -> int:
    """How many paths of fewest hops lead from source to destination (breadth first)."""
    depth, count, frontier = {source: 0}, {source: 1}, [source]
    while frontier and destination not in depth:
        following = []
        for node in frontier:
            for neighbour in neighbours.get(node, []):
                if neighbour not in depth:
                    depth[neighbour] = depth[node] + 1
                    count[neighbour] = 0
                    following.append(neighbour)
                if depth[neighbour] == depth[node] + 1:
                    count[neighbour] += count[node]
        frontier = following
    return count.get(destination, 0)


def links(scenario: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    topology = scenario["topology"]
    links = []
    for name in ("bottleneck", "access"):
        if isinstance(topology.get(name), dict):
            links.append((f"topology.{name}", topology[name]))
    for list_key in ("hops", "links"):
        for index, link in enumerate(topology.get(list_key) or []):
            links.append((f"topology.{list_key}.{index}", link))
    for index, access in enumerate(topology.get("access_links") or []):
        links.append((f"topology.access_links.{index}", access))
    return links


def show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "unset"
    return str(value)
