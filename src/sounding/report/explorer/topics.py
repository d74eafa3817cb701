"""What the run explorer shows of a dataset besides the rankings: query texts and their analysed terms, the
judgements, and for each document a list shows (or a query misses) its title and a snippet, with the words
whose analysed terms are query terms marked.

`sounding run` writes it per dataset as OUT/explorer/<dataset>.json once the dataset's settings ran
(`write_topics`), so a report stays a function of its output folder; `sounding diff` builds it in memory.

A word is marked as the index matches it: each whitespace-separated piece of the text is analysed with the
dataset's analyzer (stemming included), and the piece is marked when one of its terms is among the query's
analysed terms ("Treatments" matches a query's "treatment"). A document's snippet is the SNIPPET characters
of its text with the most words matching the queries that show it.
"""
from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from ...errors import SoundingError

FORMAT = 1
MAX_QUERIES = 2000  # queries a dataset shows at most (evenly spaced in qid order above): the page stays small
SNIPPET = 240  # characters of text shown per document
TITLE = 160  # characters of a title shown
SCAN = 6000  # characters of a document's text searched for its snippet
BATCH = 2048  # documents whose words are analysed together
BLOCK = 1 << 20  # bytes of the corpus read at a time
CACHE = 1_000_000  # words whose analysis is kept
_PIECE = re.compile(r"\S+")
_WORD = re.compile(r"\w(?:.*\w)?", re.S)  # a piece without its leading and trailing punctuation
_ID = re.compile(rb'"(?:_id|docid|id)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_BEIR_ID = re.compile(rb'\n\{"_id": ?"([^"\\\n]*)"')  # a line's start as BEIR writes it, and its id


def topics_path(out: Path, dataset: str) -> Path:
    return Path(out) / "explorer" / f"{dataset}.json"


def write_topics(out: Path, dataset, analyzer: str, rankings: Iterable[Mapping[str, list[str]]],
                 key: str = "") -> Path:
    """OUT/explorer/<dataset>.json for a `Dataset` whose settings' rankings ({qid: [docid, ...]}) are given;
    `key` says what it was made from (the caller's digest), to be kept while that is unchanged."""
    from ...io import atomic_write

    data = build_topics(dataset.queries, dataset.qrels, dataset.corpus_path, analyzer, rankings)
    path = topics_path(out, dataset.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({"format": FORMAT, "dataset": dataset.name, "key": key, **data},
                                  ensure_ascii=False, separators=(",", ":")))
    return path


def read_topics(out: Path, dataset: str) -> dict | None:
    """The dataset's explorer file, or None when there is none or it is not one this version reads."""
    path = topics_path(out, dataset)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def build_topics(queries: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]], corpus: Path | None,
                 analyzer: str, rankings: Iterable[Mapping[str, list[str]]]) -> dict:
    """{"analyzer", "terms" (the queries' analysed terms), "queries" {qid: [text, [term numbers]]}, "qrels",
    "docs" {docid: [title, title marks, snippet, snippet marks]}}: marks are [start, end, term number, ...]
    spans of the shown text. Queries are the judged ones (at most MAX_QUERIES: `explored`); documents those
    in their rankings or judged relevant to them."""
    from ...analysis import get_analyzer

    analyze = get_analyzer(analyzer)
    judged = explored(sorted(q for q, j in qrels.items() if j))
    query_terms = {q: sorted(set(analyze(queries.get(q, "")))) for q in judged}
    vocabulary = sorted({t for terms in query_terms.values() for t in terms})
    number = {t: i for i, t in enumerate(vocabulary)}
    shown_for: dict[str, set[str]] = {}  # docid -> the queries whose lists or relevant documents hold it
    kept = set(judged)
    for lists in rankings:
        for q, docs in lists.items():
            if q in kept:
                for d in docs:
                    shown_for.setdefault(d, set()).add(q)
    for q in judged:
        for d, g in qrels[q].items():
            if g > 0:
                shown_for.setdefault(d, set()).add(q)
    marker = _Marker(analyze, number)
    docs = {}
    found = _documents(corpus, shown_for.keys()) if corpus else iter(())
    while batch := [(d, title[:TITLE] + ("…" if len(title) > TITLE else ""), text)
                    for d, title, text in itertools.islice(found, BATCH)]:
        marker.learn([x for _, title, text in batch for x in (title, text[:SCAN])])
        for doc_id, title, text in batch:
            interest = {i for q in shown_for[doc_id] for i in (number[t] for t in query_terms.get(q, ()))}
            snippet, marks = marker.snippet(text, interest)
            docs[doc_id] = [title, marker.marks(title), snippet, marks]
    return {"analyzer": analyzer, "terms": vocabulary,
            "queries": {q: [queries.get(q, ""), [number[t] for t in query_terms[q]]] for q in judged},
            "qrels": {q: dict(qrels[q]) for q in judged}, "docs": docs}


def explored(qids: list[str]) -> list[str]:
    """The queries the explorer shows: all of them, or MAX_QUERIES evenly spaced in the order given."""
    if len(qids) <= MAX_QUERIES:
        return qids
    return [qids[i * len(qids) // MAX_QUERIES] for i in range(MAX_QUERIES)]


class _Marker:
    """Marks the pieces of a text whose analysed terms are query terms (pieces analysed once each: by the
    analyzer's compiled chain over the query terms where it has one, ~10× the Python chain's speed on the
    hundreds of thousands of distinct pieces of an NQ-size run's documents)."""

    def __init__(self, analyze, number: Mapping[str, int]):
        self.analyze, self.number = analyze, number
        self.cache: dict[str, tuple[int, ...]] = {}
        self.compiled = None
        if hasattr(analyze, "compiled"):
            from ...analysis.bytetable import ByteTable

            vocab = ByteTable(max(2, len(number)), max(1 << 16, 16 * len(number)))
            vocab.add_all(sorted(number, key=number.__getitem__))  # entry i = term number i (distinct terms)
            self.compiled = analyze.compiled(vocab, grow=False)

    def learn(self, texts: list[str]) -> None:
        """Analyse the pieces of these texts not analysed yet, in one compiled call (with a compiled chain;
        else each is analysed when first asked for)."""
        cache = self.cache
        if self.compiled is None or len(cache) >= CACHE:
            return
        pieces = list({m.group() for text in texts for m in _PIECE.finditer(text)}.difference(cache))
        from ...analysis.compiled import joined  # (loaded with the compiled chain already)

        toks, bounds = self.compiled.scan(*joined([p.encode("utf-8", "surrogatepass") for p in pieces]))
        toks, bounds = toks.tolist(), bounds.tolist()
        for i, piece in enumerate(pieces):  # (a dropped token or a term outside the queries' is < 0)
            cache[piece] = tuple(sorted({t for t in toks[bounds[i] : bounds[i + 1]] if t >= 0}))

    def terms(self, piece: str) -> tuple[int, ...]:
        got = self.cache.get(piece)
        if got is None:
            if self.compiled is not None:
                got = tuple(sorted(self.compiled.query(piece)[0].tolist()))
            else:
                got = tuple(sorted({self.number[t] for t in self.analyze(piece) if t in self.number}))
            if len(self.cache) < CACHE:
                self.cache[piece] = got
        return got

    def marks(self, text: str, base: int = 0, end: int | None = None) -> list[list[int]]:
        """[start, end, term numbers...] (relative to `base`) of each marked word of text[base:end]."""
        out = []
        for m in _PIECE.finditer(text, base, len(text) if end is None else end):
            terms = self.terms(m.group())
            if terms:
                word = _WORD.search(m.group())
                a, z = (m.start() + word.start(), m.start() + word.end()) if word else (m.start(), m.end())
                out.append([a - base, z - base, *terms])
        return out

    def snippet(self, text: str, interest: set[int]) -> tuple[str, list[list[int]]]:
        """The SNIPPET characters of `text` (from a word's start) holding the most words whose terms are in
        `interest`, "…" where text was left out, and its marks."""
        pieces = list(_PIECE.finditer(text, 0, min(len(text), SCAN)))
        if not pieces:
            return "", []
        hits = [1 if interest.intersection(self.terms(p.group())) else 0 for p in pieces]
        best, best_start, count, j = -1, 0, 0, 0
        for i, p in enumerate(pieces):  # window [i, j): pieces starting within SNIPPET characters of piece i
            while j < len(pieces) and pieces[j].end() - p.start() <= SNIPPET:
                count += hits[j]
                j += 1
            if count > best:
                best, best_start = count, i
            count -= hits[i] if j > i else 0
            j = max(j, i + 1)
        start = pieces[best_start].start()
        end = start
        for p in pieces[best_start:]:
            if p.end() - start > SNIPPET:
                break
            end = p.end()
        end = max(end, min(len(text), start + SNIPPET))  # one long word: cut it
        lead = "… " if start > 0 else ""
        tail = " …" if end < len(text) else ""
        marks = [[a + len(lead), z + len(lead), *t] for a, z, *t in self.marks(text, start, end) if z <= end - start]
        return lead + text[start:end] + tail, marks


def _documents(corpus: Path, wanted: Iterable[str]):
    """(docid, title, text) of the wanted documents, in corpus order, in one pass over the corpus in blocks
    of lines (datasets.readers.iter_blocks). In a block whose every line starts as BEIR writes it
    (`{"_id": "..."`), the ids are read by one regular expression over the block and only the wanted lines
    are looked at; any other block is looked at line by line, a line whose id is not wanted skipped after a
    regular-expression look at it. Only wanted lines are decoded and read as JSON (every line would cost
    seconds a million documents: at NQ size this pass took 28 s line by line, 8 s in blocks)."""
    from ...datasets.readers import iter_blocks

    wanted = set(wanted)
    keys = {w.encode("utf-8") for w in wanted}
    for first, block in iter_blocks(corpus, BLOCK):
        ids = _BEIR_ID.findall(block)
        if len(ids) == block.count(b"\n"):  # every line a BEIR line: ids[i] is line i's
            if keys.isdisjoint(ids):
                continue
            lines = block.split(b"\n")
            picked = [(i, lines[i + 1]) for i, key in enumerate(ids) if key in keys]
        else:
            picked = [(i, raw) for i, raw in enumerate(block.split(b"\n")[1:])
                      if raw.strip() and _maybe(raw, keys)]
        for i, raw in picked:
            lineno = first + i
            try:
                line = raw.decode("utf-8")
                obj = json.loads(line.lstrip("\ufeff") if lineno == 1 else line)
            except ValueError:  # (UnicodeDecodeError is one)
                raise SoundingError(f"{corpus}:{lineno}: bad JSON") from None
            if not isinstance(obj, dict):
                continue
            doc_id = next((obj[k] for k in ("_id", "docid", "id") if k in obj), None)
            doc_id = None if doc_id is None else str(doc_id)
            if doc_id in wanted:
                wanted.discard(doc_id)
                keys.discard(doc_id.encode("utf-8"))
                yield doc_id, str(obj.get("title") or ""), str(obj.get("text") or obj.get("contents") or "")
                if not wanted:
                    return


def _maybe(raw: bytes, keys: set[bytes]) -> bool:
    """Whether a line may be a wanted document's: its id, as a regular expression finds it, is wanted, or
    is written with an escape (or not found), which only its JSON tells."""
    m = _ID.search(raw)
    return not m or b"\\" in m.group(1) or m.group(1) in keys
