"""The Active Delay Control paper's claims about the queue-size sweep (Figs. 4-6, 8-9), judged
on per-run values: each frame here is indexed by (queue size b in packets, run), and run r of
every queue size shares its random streams, so differences between sizes are paired by run.
Every bound below was written before the runs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab.reproduce.context import Reproduction
from tcplab.reproduce.estimates import Estimate
from tcplab.reproduce.verdicts import Check, at_least, at_most, within

TCP = ("Reno", "Reno+ECN", "NewReno+ECN+LT")
# Verdicts of the report of 2026-11-25, by that report's claim id.
WAS = {"cwnd rtt": ("adc-1", "reproduced"), "cwnd 100 ms": ("adc-2", "partly"), "timeouts cwnd": ("adc-3", "not reproduced"),
       "cwnd queue": ("adc-4", "reproduced"), "timeouts queue": ("adc-5", "partly"), "reno 800": ("adc-6", "partly"),
       "reno ecn small": ("adc-7", "not reproduced"), "newreno small": ("adc-8", "reproduced"),
       "transfer 400": ("adc-9", "reproduced"), "sdc level": ("adc-10", "not reproduced"),
       "sdc transfer": ("adc-11", "reproduced"), "sdc delay": ("adc-12", "partly")}


def values(frame: pd.DataFrame, b: int, column: str) -> pd.Series:
    """One queue size's per-run values, indexed by run."""
    return frame.xs(b, level="b")[column].sort_index()


def estimate(frame: pd.DataFrame, b: int, column: str) -> Estimate:
    return Estimate.of(values(frame, b, column))


def paired(first: pd.DataFrame, b1: int, second: pd.DataFrame, b2: int, column: str) -> Estimate:
    """first at b1 minus second at b2, run by run."""
    a, c = values(first, b1, column), values(second, b2, column)
    runs = a.index.intersection(c.index)
    return Estimate.paired_difference(a[runs], c[runs])


def ratio(first: pd.DataFrame, b1: int, second: pd.DataFrame, b2: int, column: str) -> Estimate:
    a, c = values(first, b1, column), values(second, b2, column)
    runs = a.index.intersection(c.index)
    return Estimate.of(a[runs] / c[runs].clip(lower=1e-9))


def sizes_of(frame: pd.DataFrame) -> list[int]:
    return sorted(set(frame.index.get_level_values("b")))


def tcp_claims(r: Reproduction, results: dict[str, pd.DataFrame], engine: dict[str, pd.DataFrame]) -> None:
    """Figs. 4-6 on tcplab; the headline checks again on ns-2's runs where ns-2 ran the sizes."""
    e = "queue size"
    newreno = results["NewReno+ECN+LT"]
    sizes = sizes_of(newreno)
    first = sizes[0]

    def on_engine(build) -> dict[str, list[Check]]:
        """The same checks on ns-2's runs, if ns-2 ran the sizes they need."""
        try:
            checks = build(engine, sizes_of(engine["NewReno+ECN+LT"]))
        except (KeyError, ValueError, IndexError):
            return {}
        return {"ns2": checks} if checks else {}

    def cwnd_grows(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        frame = frames["NewReno+ECN+LT"]
        low, high = available[0], available[-1]
        return [at_least(f"cwnd at b = {high} - at b = {low}", paired(frame, high, frame, low, "cwnd"), 0.001)]

    r.claim(e, "The average cwnd grows with the queue size (Fig. 4; criterion: NewReno+ECN+LT's cwnd at the largest "
            "b minus at b = 100, paired by run, above 0; secondary: below 3 packets at b = 100, above 4 at every "
            "b > 400).", cwnd_grows(results, sizes),
            [at_most("cwnd at b = 100", estimate(newreno, first, "cwnd"), 3.0)]
            + [at_least(f"cwnd at b = {b}", estimate(newreno, b, "cwnd"), 4.0) for b in sizes if b > 400],
            engines=on_engine(cwnd_grows), was=WAS["cwnd queue"])

    def falls(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        low, high = available[0], available[-1]
        return [at_most(f"{v}: timeouts at b = {high} - at b = {low}", paired(frames[v], high, frames[v], low, "timeouts"),
                        -0.5) for v in TCP]

    r.claim(e, "For all three versions of TCP the long flows' timeouts decrease as the queue size increases "
            "(Fig. 5; criterion: timeouts at the largest b minus at the smallest, paired by run, below 0 for each).",
            falls(results, sizes), engines=on_engine(falls), was=WAS["timeouts queue"])

    def reno_800(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        return ([at_least(f"Reno's timeouts at b = {b}", estimate(frames["Reno"], b, "timeouts"), 200)
                 for b in available if b < 800]
                + [at_most(f"Reno's timeouts at b = {b}", estimate(frames["Reno"], b, "timeouts"), 199.5)
                   for b in available if b >= 800])

    r.claim(e, "Reno's timeouts do not go below 200 until the queue reaches 800 packets (Fig. 5; criterion: at least "
            "200 at every b below 800, below 200 from 800 on).", reno_800(results, sizes),
            engines=on_engine(reno_800), was=WAS["reno 800"])
    def not_much_better(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        return [at_least(f"Reno+ECN / Reno timeouts at b = {b}", ratio(frames["Reno+ECN"], b, frames["Reno"], b, "timeouts"),
                         0.75) for b in available if b < 300]

    r.claim(e, "Reno with ECN is not much better than Reno below 300 packets (Fig. 5; criterion: Reno+ECN's timeouts "
            "over Reno's, per run, at least 0.75 at every b below 300).", not_much_better(results, sizes),
            engines=on_engine(not_much_better), was=WAS["reno ecn small"])

    def ecn_reduces(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        frame = frames["Reno+ECN"]
        return [at_most(f"Reno+ECN's timeouts at b = {b} / at b = {available[0]}",
                        ratio(frame, b, frame, available[0], "timeouts"), 0.5) for b in available if b >= 300]

    r.claim(e, "Reno with ECN reduces its timeouts significantly from 300 packets on (Fig. 5; criterion: below half "
            "of its own count at b = 100 at every b from 300, per run).", ecn_reduces(results, sizes),
            engines=on_engine(ecn_reduces))

    def newreno_small(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        return [at_most(f"NewReno+ECN+LT - Reno+ECN timeouts at b = {b}",
                        paired(frames["NewReno+ECN+LT"], b, frames["Reno+ECN"], b, "timeouts"), -0.5)
                for b in available if b < 300]

    r.claim(e, "NewReno with ECN and Limited Transmit times out less than Reno with ECN below 300 packets (Fig. 5; "
            "criterion: the paired difference below 0 at every b below 300).", newreno_small(results, sizes),
            engines=on_engine(newreno_small), was=WAS["newreno small"])
    def similar(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        return [within(f"NewReno+ECN+LT / Reno+ECN timeouts at b = {b}",
                       ratio(frames["NewReno+ECN+LT"], b, frames["Reno+ECN"], b, "timeouts"), 0.8, 1.25)
                for b in available if b >= 300]

    r.claim(e, "NewReno+ECN+LT and Reno+ECN have similar numbers of timeouts for larger queue sizes (Fig. 5; "
            "criterion: their ratio, per run, within 0.8 to 1.25 at every b from 300).", similar(results, sizes),
            engines=on_engine(similar))

    def flat(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        above = [b for b in available if b > 400]
        checks = []
        for v in ("Reno+ECN", "NewReno+ECN+LT"):
            for b in above[1:]:
                checks.append(within(f"{v}: timeouts at b = {b} / at b = {above[0]}",
                                     ratio(frames[v], b, frames[v], above[0], "timeouts"), 0.8, 1.25))
        return checks

    r.claim(e, "For both ECN versions of TCP the timeouts stay flat above 400 packets (Sec. 4; criterion: each b's "
            "count over the count at the first b above 400, per run, within 0.8 to 1.25).",
            flat(results, sizes), engines=on_engine(flat),
            not_testable=None if len([b for b in sizes if b > 400]) > 1 else "the quick form runs one queue above 400")
    def close_to_others(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        return [within(f"Reno / {v} timeouts at b = {b}", ratio(frames["Reno"], b, frames[v], b, "timeouts"), 0.8, 1.25)
                for v in TCP[1:] for b in available if b >= 1200]

    r.claim(e, "From 1200 packets Reno's timeouts are close to the other two versions' (Sec. 4; criterion: Reno's "
            "over each other's, per run, within 0.8 to 1.25 at every b from 1200).", close_to_others(results, sizes),
            engines=on_engine(close_to_others),
            not_testable=None if max(sizes) >= 1200 else "the quick form runs no queue of 1200 packets or more")
    def slower_below_400(frames: dict[str, pd.DataFrame], available: list[int]) -> list[Check]:
        frame = frames["NewReno+ECN+LT"]
        return [at_least(f"median transfer time at b = {available[0]} - at b = 400",
                         paired(frame, available[0], frame, 400, "transfer_s"), 0.001, " s")]

    r.claim(e, "The median transfer time is larger below 400 packets (timeouts) than at 400 (Fig. 6; criterion: at "
            "b = 100 minus at 400, paired by run, above 0).", slower_below_400(results, sizes),
            engines=on_engine(slower_below_400), was=WAS["transfer 400"])
    _linear_transfer_claim(r, newreno, sizes)


def _linear_transfer_claim(r: Reproduction, newreno: pd.DataFrame, sizes: list[int]) -> None:
    e = "queue size"
    large = [b for b in sizes if b >= 400]
    slopes = []
    for run in sorted(set(newreno.index.get_level_values("run"))):
        times = [newreno.loc[(b, run), "transfer_s"] for b in large]
        slopes.append(np.polyfit(large, times, 1)[0] * 100 if len(large) > 1 else np.nan)
    means = newreno.groupby(level="b")["transfer_s"].mean().loc[large]
    slope, intercept = np.polyfit(large, means.values, 1) if len(large) > 1 else (np.nan, np.nan)
    fitted = slope * np.asarray(large) + intercept
    r_squared = 1 - ((means.values - fitted) ** 2).sum() / max(((means.values - means.mean()) ** 2).sum(), 1e-12)
    r.claim(e, "Above 400 packets the median transfer time grows linearly with the queue size (Fig. 6; criterion: "
            "the per-run slope above 0; secondary: a line fits the means with R^2 at least 0.9).",
            [at_least("slope (s per 100 packets)", Estimate.of(slopes), 0.0001)],
            [at_least("R^2 of a line through the means", Estimate.exact(r_squared), 0.9)],
            not_testable=None if len(large) > 2 else "the quick form runs fewer than three queue sizes from 400")


def sdc_claims(r: Reproduction, results: dict[str, pd.DataFrame]) -> None:
    e = "queue size"
    newreno, sdc = results["NewReno+ECN+LT"], results["SDC"]
    sizes = sizes_of(newreno)

    def first_at_level(frame: pd.DataFrame, run: int) -> float:
        """The smallest b at which a run's timeouts come within 20% of TCP's level in that run
        (NewReno+ECN+LT's mean above 400 packets)."""
        level = np.mean([newreno.loc[(b, run), "timeouts"] for b in sizes if b > 400])
        reached = [b for b in sizes if frame.loc[(b, run), "timeouts"] <= 1.2 * level]
        return float(min(reached)) if reached else float(sizes[-1] + 100)

    runs = sorted(set(newreno.index.get_level_values("run")))
    sdc_b = [first_at_level(sdc, run) for run in runs]
    tcp_b = [first_at_level(newreno, run) for run in runs]
    r.number(e, "smallest b with TCP's timeout level", "SDC", "packets", None, Estimate.of(sdc_b), "Fig. 8")
    r.number(e, "smallest b with TCP's timeout level", "NewReno+ECN+LT", "packets", None, Estimate.of(tcp_b), "Fig. 5")
    r.claim(e, "SDC reaches TCP's timeout level with a smaller queue than TCP needs (Fig. 8; criterion: per run, the "
            "smallest b within 20% of TCP's level above 400 packets, SDC's minus TCP's below 0; a run that never "
            "reaches it counts the largest b + 100).",
            [at_most("SDC's b - TCP's b", Estimate.paired_difference(sdc_b, tcp_b), -1, " packets")],
            not_testable=None if any(b > 400 for b in sizes) else "the quick form runs no queue above 400 packets",
            was=WAS["sdc level"])
    small = [b for b in sizes if b < 400]
    r.claim(e, "Below 400 packets SDC's short transfers finish sooner than TCP's (Fig. 9; criterion: SDC's median "
            "transfer time minus TCP's, paired by run, below 0 at every b below 400).",
            [at_most(f"SDC - TCP median transfer time at b = {b}", paired(sdc, b, newreno, b, "transfer_s"), -0.001, " s")
             for b in small], was=WAS["sdc transfer"])
    above = [b for b in sizes if b > 400]
    r.claim(e, "Above 400 packets SDC and TCP have similar transfer times (Sec. 4, Fig. 9; criterion: SDC's median "
            "transfer time over TCP's, per run, within 0.8 to 1.25 at every b above 400).",
            [within(f"SDC / TCP median transfer time at b = {b}", ratio(sdc, b, newreno, b, "transfer_s"), 0.8, 1.25)
             for b in above], not_testable=None if above else "the quick form runs no queue above 400 packets")
