"""TREC file formats: run and qrels files read and written exactly as trec_eval reads them.

    files.py    read_run, write_run, read_qrels (plain or gzip; one line naming the file and line for a bad one)
    writer.py   RunWriter: a run file formatted from a search's arrays by compiled code, batch after batch
    scan.py     the compiled scanners of run and qrels bytes (fields, scores, hashes) the readers share
    order.py    trec_order: trec_eval's ranking of a query's hits (score descending, docid descending)

Below evaluation (eval/ scores what these read) and above nothing but the package's base.
"""
from .files import read_qrels, read_run, write_run
from .order import trec_order

__all__ = ["read_qrels", "read_run", "trec_order", "write_run"]
