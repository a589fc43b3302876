"""The ``tcplab`` commands of the back-ends: ``compare-backends`` (a scenario on the simulator and
on the kernel, ns-2 or ns-3, side by side) and ``lab cleanup`` (what a killed Linux run left behind).
``tcplab run --backend linux|ns2|ns3`` is ``run``'s own option."""

from __future__ import annotations

import argparse
import shutil
import sys
import time

from tcplab import cli_options


def add_parsers(commands) -> None:
    compare = commands.add_parser(
        "compare-backends", help="run a scenario on the simulator and on this machine's kernel (root), ns-2 or ns-3, and compare",
        description="Writes both runs' tables, comparison.csv (flows), links.csv, comparison.md and overlay.png (cwnd "
        "and RTT of each flow, solid simulator, dashed the other engine) to --out, and prints the tables.",
    )
    compare.add_argument("scenario", help="scenario TOML file (a dumbbell or chain)")
    cli_options.add_set(compare)
    cli_options.add_duration(compare)
    compare.add_argument("--backend", choices=["linux", "ns2", "ns3"], default="linux",
                         help="the engine beside the simulator: linux (kernel TCP, root; default), ns2 (Debian's "
                         "ns-2.35) or ns3 (ns-3 3.44)")
    compare.add_argument("--warm-up", metavar="DURATION",
                         help="leave the first DURATION out of the RTT percentiles (default: none)")
    cli_options.add_out(compare, "output directory (default: results/<scenario name>-backends)")
    compare.add_argument("--quiet", action="store_true", help="print nothing but errors")
    lab = commands.add_parser("lab", help="the Linux back-end's namespaces, BPF congestion controls and build directories: 'tcplab lab cleanup' removes what a killed run left")
    lab.add_argument("action", choices=["cleanup"], help="cleanup: remove every tcplab namespace and what runs in it")


def compare_backends_command(args: argparse.Namespace, overrides: dict, default_out) -> int:
    from tcplab.compare_backends import compare_backends, link_table, markdown_link_table, markdown_table, save
    from tcplab.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    started = time.monotonic()
    warm_up_s = cli_options.seconds("--warm-up", args.warm_up) if args.warm_up else 0.0
    results, table = compare_backends(scenario, overrides, warm_up_s, progress=not args.quiet, backend=args.backend)
    out = args.out or default_out(scenario, args.scenario, "backends")
    save(results, table, out)
    if not args.quiet:
        print(markdown_table(table))
        print()
        print(markdown_link_table(link_table(results), args.backend))
        print(f"both back-ends in {time.monotonic() - started:.1f} s; written to {out}/ "
              f"(simulator/, {args.backend}/, comparison.csv, links.csv, comparison.md, overlay.png)")
    return 0


def lab_command(args: argparse.Namespace) -> int:
    from tcplab.backends.linux import bpf_load, build_directory, lab, preflight

    preflight.check_machine()
    removed = lab.remove()
    print(f"removed {len(removed)} namespace{'s' if len(removed) != 1 else ''}"
          + (": " + ", ".join(removed) if removed else " (none was left)"), file=sys.stderr)
    stale = build_directory.remove_stale()
    print(f"removed {len(stale)} build director{'ies' if len(stale) != 1 else 'y'} of killed runs"
          + (": " + ", ".join(str(d) for d in stale) if stale else " (none was left)"), file=sys.stderr)
    if shutil.which("bpftool"):
        unregistered = bpf_load.remove_all()
        print(f"unregistered {len(unregistered)} BPF congestion control{'s' if len(unregistered) != 1 else ''}"
              + (": " + ", ".join(unregistered) if unregistered else " (none was left)"), file=sys.stderr)
    return 0
