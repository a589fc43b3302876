"""Reproductions of the papers tcplab implements: each paper's experiments as shipped scenarios
(``scenarios/papers/<paper>/``), run as sweeps, reported beside the published numbers.

- ``context.py``: what an experiment uses: sweeps on a shared Dask client, numbers, claims, figures;
- ``report.py``: the Markdown and HTML report, numbers.csv and claims.csv;
- ``command.py``: ``tcplab reproduce PAPER``;
- ``roccet.py``, ``rta.py``, ``tcp_do.py``, ``adc.py``, ``ctcp_study.py``: one paper each.
"""

from __future__ import annotations

# Paper name on the command line -> module that runs it.
PAPERS = {
    "roccet": "tcplab.reproduce.roccet",
    "rta": "tcplab.reproduce.rta",
    "tcp-do": "tcplab.reproduce.tcp_do",
    "adc": "tcplab.reproduce.adc",
    "ctcp-study": "tcplab.reproduce.ctcp_study",
}
