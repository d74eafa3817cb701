"""The run explorer of report.html: two systems of the report side by side, query by query.

- `topics`: what it shows of a dataset (query texts and terms, judgements, titles and snippets with the
  query terms marked), written by `sounding run` as OUT/explorer/<dataset>.json;
- `payload`: the page's embedded data from the output folder: rankings, per-query nDCG@10, and RBO and KTU
  of every pair of systems (sounding.eval.agreement);
- the page's script is templates/explorer.js (vanilla JavaScript, nothing fetched).
"""
from __future__ import annotations

from .payload import build, encode, rankings
from .standalone import diff_page
from .topics import build_topics, read_topics, topics_path, write_topics

__all__ = ["build", "build_topics", "diff_page", "encode", "rankings", "read_topics", "topics_path", "write_topics"]
