"""Options shared by several commands, declared once (typer reads them from `Annotated` types)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

Queries = Annotated[str, typer.Option("--queries", "-q", help="queries: BEIR jsonl[.gz] or TSV of id and text, or a "
                                                              "dataset's name (scifact, beir/scifact/test: its judged queries)")]
Device = Annotated[str, typer.Option("--device", help="where dense, sparse and rerank models run: auto (the best "
                                                     "available: cuda, then mps, then cpu), cpu, cuda[:N] or mps; "
                                                     "float16 on a GPU")]
RunFile = Annotated[Path, typer.Option("--run", help="TREC run file to write (gzip if the name ends in .gz)")]
LayoutName = Annotated[str, typer.Option(help="flat | multifield | multifield-max | bm25f")]
K1 = Annotated[float, typer.Option(help="BM25 k1 (Anserini 0.9, Lucene 1.2)")]
B = Annotated[float, typer.Option(help="BM25 b (Anserini 0.4, Lucene 0.75)")]
Hits = Annotated[int, typer.Option(help="hits per query")]
LuceneNorms = Annotated[bool, typer.Option("--lucene-norms", help="Lucene's one-byte length norms and float arithmetic")]
TitleWeight = Annotated[Optional[float], typer.Option(help="title weight (multifield default 1, bm25f default 3)")]
RemoveSelfHits = Annotated[bool, typer.Option("--remove-self-hits", help="drop hits whose id equals the query id")]
Tag = Annotated[str, typer.Option(help="run tag (last column)")]
