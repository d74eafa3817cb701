"""Synthetic NQ-shaped corpus in BEIR layout, for BM25 speed and memory benchmarks at NQ scale.

    python benchmarks/synthetic.py --scale 0.05 --out bench-out/synth-0.05 [--seed 0]

Writes corpus.jsonl.gz, queries.jsonl, qrels/test.tsv and synthetic.json (parameters and measured
statistics) into --out. Everything comes from a seeded numpy generator, vectorised per chunk of
documents, so the same arguments give byte-identical files (gzip header time fixed at 0; same zlib).

The shape follows BEIR's Natural Questions (NQ) corpus (numbers: BEIR paper Table 1 and the
xhluca/bm25-benchmarks README, see docs/baselines.md §4b):
  * 2,681,468 documents at scale 1.0, ids doc0..docN-1; 3,452 test queries, ids test0..test3451,
    capped at n_docs // 20 at small scales (at least 1);
  * ~78.9 whitespace words per document (title + text; BEIR: 78.88) and ~55 bm25s tokens per
    document (bm25-benchmarks: 148,249,808 tokens / 2,681,468 docs = 55.3: Lucene's 33 stop words
    and one-letter tokens removed); queries ~9.2 words (BEIR: 9.16); ~1.2 relevant docs per query;
  * titles of 1-5 words shared by runs of passages (an "article", geometric length, mean 8 — an
    assumption: NQ passages come from Wikipedia articles);
  * text = real English function words (30 % Lucene stop words by token), numbers and years, and
    pronounceable pseudo-words (consonant-vowel syllables) drawn from a Zipf-Mandelbrot law over a
    vocabulary that grows with the corpus (Heaps' law), with inflected forms (-s, -ed, -ing) that an
    English stemmer conflates, commas and full stops;
  * each query: a question word, function words and 3-9 "topic" terms (mid-frequency lemmas in
    random inflections); its relevant document(s) receive a random subset of the topic terms
    (tf 1-3), and 40 distractor documents receive similar subsets, so BM25 must rank and nDCG@10
    is meaningful but not trivial.

It is synthetic: numbers measured on it are speed and memory figures at NQ's shape, never
effectiveness claims about NQ.

Large-corpus benchmark (docs/benchmarks-log.md, "Large corpora"):

    python benchmarks/synthetic.py --scale 1.0 --out bench-out/synth-1.0 --bench bench-out/ix --postings raw packed

generates the corpus if --out does not hold it yet, then per postings layout builds an index as
`sounding index --memory GiB` does, in a child process with its analysis workers (build seconds, CPU
seconds; peak memory of the whole process tree,
the sum of every process's PSS sampled every 0.2 s), prints each field's postings bytes, and searches
all queries at top 10 / 100 / 1000 with one thread, each in a fresh process (queries per second, best
of 3, and that process's peak RSS, VmHWM), with the load average beside every figure. --search-only
reuses indexes already built under --bench; --positions builds them with positions (raw postings only).
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

GENERATOR_VERSION = 1
NQ_DOCS = 2_681_468
NQ_QUERIES = 3_452
CHUNK_DOCS = 50_000

# Function words with rough relative frequencies in encyclopaedic English (per 1,000 words).
FUNCTION_WORDS = {
    "the": 62, "of": 32, "and": 27, "in": 22, "a": 19, "to": 17, "was": 10, "is": 9, "for": 8, "as": 7,
    "by": 7, "on": 6, "with": 6, "that": 5, "at": 4.5, "from": 4.5, "his": 4, "he": 4, "it": 4, "an": 3,
    "which": 3, "are": 3, "were": 3, "also": 2.5, "this": 2.5, "be": 2, "or": 2, "has": 2, "had": 2,
    "its": 2, "their": 1.5, "they": 1.5, "after": 1.5, "who": 1.5, "she": 1.2, "her": 1.2, "been": 1.2,
    "have": 1.2, "not": 1, "but": 1, "when": 0.8, "into": 0.8, "during": 0.6, "there": 0.6, "other": 0.6,
    "all": 0.6, "more": 0.6, "most": 0.5, "than": 0.5, "can": 0.5, "these": 0.5, "such": 0.4,
    "would": 0.4, "only": 0.4, "where": 0.4, "about": 0.4, "between": 0.3, "some": 0.3, "then": 0.3,
    "under": 0.3, "while": 0.3, "each": 0.3, "will": 0.3, "no": 0.2, "if": 0.2,
}
QUESTION_WORDS = ["who", "what", "when", "where", "which", "how many", "how", "what is the", "who sang",
                  "when did", "where is the", "who played"]
QUERY_FILLERS = ["the", "of", "in", "is", "a", "was", "did", "to", "for", "first", "does", "on"]

# Pronounceable pseudo-words: syllable = onset + nucleus + coda.
ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
          "br", "bl", "cr", "cl", "dr", "fr", "gr", "pl", "pr", "st", "tr", "sh", "ch", "th", "sk", "sn"]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "oo", "ou", "ia"]
CODAS = ["", "", "", "n", "r", "s", "l", "m", "t", "nd", "st", "rk", "x", "v"]
SUFFIXES = ["", "s", "ed", "ing"]
SUFFIX_P = [0.70, 0.15, 0.07, 0.08]
# English stop words the syllable grammar above can spell (Lucene, Snowball, Terrier/PISA, sklearn
# lists): never used as pseudo-words, so no engine drops a synthetic content term as a stop word.
EXCLUDE = frozenset("""
a about above across after afterwards again against all almost alone along already also although always am
among amongst amoungst amount an and another any anyhow anyone anything anyway anywhere are around as at back
be became because become becomes becoming been before beforehand behind being below beside besides between
beyond bill both bottom but by call can cannot cant co con could couldnt cry de describe detail do does done
down due during each eg eight either eleven else elsewhere empty enough etc even ever every everyone
everything everywhere except few fifteen fifty fill find fire first five for former formerly forty found four
from front full further get give go had has hasnt have he hence her here hereafter hereby herein hereupon
hers herself him himself his how however hundred i ie if in inc indeed interest into is it its itself keep
last latter latterly least less ltd made many may me meanwhile might mill mine more moreover most mostly move
much must my myself name namely neither never nevertheless next nine no nobody none noone nor not nothing now
nowhere of off often on once one only onto or other others otherwise our ours ourselves out over own part per
perhaps please put rather re same see seem seemed seeming seems serious several she should show side since
sincere six sixty so some somehow someone something sometime sometimes somewhere still such system take ten
than that the their them themselves then thence there thereafter thereby therefore therein thereupon these
they thick thin third this those though three through throughout thru thus to together too top toward towards
twelve twenty two un under until up upon us very via was we well were what whatever when whence whenever where
whereafter whereas whereby wherein whereupon wherever whether which while whither who whoever whole whom whose
why will with within without would yet you your yours yourself yourselves
becominger becomingest beforehander beforehandest behinds better bettered bettering betters bist buts cantest
cer certain certainer certainest cest circa concerninger concerningest considering cum describes despite
despited despites despiting doing doner dones donest dos dost failing fewer fewest figupon figuponed
figuponing figupons fore forer fores forever formerer formerest formers furthered furtherer furtherest
furthering furthermore furthers gets gone got gotta gotten hast haves having hither hitherer hitherest hoo hoos
latterer latterest latters lest lot lots main make mucher muchest musts natheless nethe nethermost nos
particular particularer particularest particulars pleased pleases pro provide provides rathe rathest relate
related res saider saidest samer sames samest sans sanses saved send senza seven severaler severalest sine
sines sometimer sometimest summat thener thenest therer therest thine thises thou thous thouses towarder
towardest versus wast withal
""".split()) | frozenset(FUNCTION_WORDS)


def n_docs_for(scale: float) -> int:
    return max(1, int(round(NQ_DOCS * scale)))


def n_queries_for(n_docs: int) -> int:
    return max(1, min(NQ_QUERIES, n_docs // 20))


def vocab_size_for(n_docs: int) -> int:
    """Content lemmas: Heaps' law (beta 0.5), 600k lemmas (2.4M surface forms) at NQ size."""
    return int(max(5_000, round(600_000 * (n_docs / NQ_DOCS) ** 0.5)))


def _rng(seed: int, *stream: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=stream))


def _pseudo_words(n: int, rng: np.random.Generator) -> list[str]:
    """`n` distinct pseudo-words, shortest first (frequent words are short: Zipf's abbreviation law)."""
    n_on, n_nu, n_co = len(ONSETS), len(NUCLEI), len(CODAS)
    per_syl = n_on * n_nu * n_co
    words: list[str] = []
    seen: set[str] = set()
    for syl in (1, 2, 3, 4):
        space = per_syl ** syl
        want = min(space, max(0, n - len(words)) * 2 + 64)
        codes = rng.choice(space, size=want, replace=False) if space <= 50_000_000 else \
            np.unique(rng.integers(0, space, size=want, dtype=np.int64))
        for code in codes.tolist():
            parts = []
            for _ in range(syl):
                code, s = divmod(code, per_syl)
                s, co = divmod(s, n_co)
                on, nu = divmod(s, n_nu)
                parts.append(ONSETS[on] + NUCLEI[nu] + CODAS[co])
            w = "".join(parts)
            if len(w) < 3 or w in seen or w in EXCLUDE or any(w + suf in EXCLUDE for suf in SUFFIXES[1:]):
                continue
            seen.add(w)
            words.append(w)
            if len(words) == n:
                break
        if len(words) == n:
            break
    words.sort(key=len)  # stable: deterministic order within a length
    return words


def _zipf_cdf(n: int, s: float, q: float) -> np.ndarray:
    p = 1.0 / (np.arange(1, n + 1, dtype=np.float64) + q) ** s
    c = np.cumsum(p)
    return c / c[-1]


class _Surfaces:
    """All surface forms in one byte pool: [function words][numbers][lemma + suffix ...][separators]."""

    def __init__(self, lemmas: list[str]):
        self.function = list(FUNCTION_WORDS)
        self.numbers = [str(i) for i in range(0, 2100)]
        forms = self.function + self.numbers + [w + suf for w in lemmas for suf in SUFFIXES]
        self.seps = [" ", ", ", ". ", "."]
        strings = forms + self.seps
        enc = [s.encode("ascii") for s in strings]
        self.lens = np.fromiter((len(e) for e in enc), dtype=np.int64, count=len(enc))
        self.starts = np.zeros(len(enc), dtype=np.int64)
        np.cumsum(self.lens[:-1], out=self.starts[1:])
        self.pool = np.frombuffer(b"".join(enc), dtype=np.uint8)
        assert self.lens.min() > 0 and len(self.pool) < 2**31  # gather's int32 ragged arange
        self.n_function = len(self.function)
        self.number_base = self.n_function
        self.lemma_base = self.n_function + len(self.numbers)
        self.sep_base = len(forms)
        self.forms = forms

    def lemma_form(self, lemma: np.ndarray, suffix: np.ndarray) -> np.ndarray:
        return self.lemma_base + lemma * len(SUFFIXES) + suffix

    def gather(self, seg_ids: np.ndarray) -> tuple[bytes, np.ndarray]:
        """Concatenate the strings `seg_ids` (a flat sequence); return bytes and per-segment end offsets."""
        lens = self.lens[seg_ids]
        ends = np.cumsum(lens)
        total = int(ends[-1]) if len(ends) else 0
        if total == 0:
            return b"", ends
        # ragged arange by one cumulative sum: +1 within a segment, a jump at each segment start
        step = np.ones(total, dtype=np.int32)
        starts = self.starts[seg_ids]
        begin = ends - lens
        step[0] = starts[0]
        step[begin[1:]] = (starts[1:] - (starts[:-1] + lens[:-1] - 1)).astype(np.int32)
        np.cumsum(step, out=step)
        return self.pool[step].tobytes(), ends


def generate(out: str | Path, scale: float = 0.05, seed: int = 0, *, progress=None) -> dict:
    """Write the corpus at `scale` × NQ into `out`; return the statistics written to synthetic.json."""
    t_start = time.perf_counter()
    out = Path(out)
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    n_docs = n_docs_for(scale)
    n_queries = n_queries_for(n_docs)
    n_lemmas = vocab_size_for(n_docs)

    lemmas = _pseudo_words(n_lemmas, _rng(seed, 1))
    sf = _Surfaces(lemmas)
    lemma_cdf = _zipf_cdf(n_lemmas, 1.05, 8.0)
    fw = np.asarray(list(FUNCTION_WORDS.values()), dtype=np.float64)
    function_cdf = np.cumsum(fw) / fw.sum()
    suffix_cdf = np.cumsum(SUFFIX_P)

    def _suffix(u):
        return np.searchsorted(suffix_cdf, u, side="right").clip(max=len(SUFFIXES) - 1)

    # -- per-document shape (one stream, so chunks can be generated independently) -------------
    r = _rng(seed, 2)
    text_len = np.clip(np.rint(r.lognormal(np.log(66.0), 0.55, n_docs)), 8, 600).astype(np.int64)
    article_len = r.geometric(1.0 / 8.0, size=n_docs // 4 + 16)
    article_of = np.repeat(np.arange(len(article_len)), article_len)[:n_docs]
    if len(article_of) < n_docs:  # pragma: no cover - geometric draws are long enough
        article_of = np.concatenate([article_of, np.arange(len(article_of), n_docs) + article_len.size])
    n_articles = int(article_of.max()) + 1
    title_len = np.minimum(1 + r.poisson(0.9, n_articles), 5)
    title_tok = sf.lemma_form(np.searchsorted(lemma_cdf, r.random(int(title_len.sum())), side="right")
                              .clip(max=n_lemmas - 1), np.zeros(int(title_len.sum()), dtype=np.int64))
    title_ptr = np.concatenate([[0], np.cumsum(title_len)])

    # -- queries, relevant documents and distractors ----------------------------------------------
    rq = _rng(seed, 3)
    band_lo = min(200, n_lemmas // 10)
    band_cdf = _zipf_cdf(n_lemmas - band_lo, 0.9, 50.0)
    n_topic = rq.integers(3, 10, size=n_queries)
    topic = [band_lo + np.searchsorted(band_cdf, rq.random(int(m)), side="right").clip(max=n_lemmas - band_lo - 1)
             for m in n_topic]
    n_rel = 1 + (rq.random(n_queries) < 0.2)
    rel_docs = rq.choice(n_docs, size=int(n_rel.sum()), replace=False) if int(n_rel.sum()) <= n_docs else \
        rq.integers(0, n_docs, size=int(n_rel.sum()))
    rel_ptr = np.concatenate([[0], np.cumsum(n_rel)])
    inj_doc, inj_form = [], []
    queries, qrels = [], []
    n_distract = 40
    for qi in range(n_queries):
        terms = topic[qi]
        m = len(terms)
        q_suffix = _suffix(rq.random(m))
        words = [QUESTION_WORDS[int(rq.integers(len(QUESTION_WORDS)))]]
        for j in range(m):
            if rq.random() < 0.35:
                words.append(QUERY_FILLERS[int(rq.integers(len(QUERY_FILLERS)))])
            words.append(sf.forms[int(sf.lemma_form(terms[j], q_suffix[j]))])
        qid = f"test{qi}"
        queries.append((qid, " ".join(words)))
        for k, d in enumerate(rel_docs[rel_ptr[qi]:rel_ptr[qi + 1]].tolist()):
            keep = rq.random(m) < (0.5 if k == 0 else 0.35)
            if not keep.any():
                keep[int(rq.integers(m))] = True
            kept, kept_q = terms[keep], q_suffix[keep]
            tf = np.minimum(3, rq.geometric(0.6, size=len(kept)))  # tf 1-3
            planted = np.repeat(kept, tf)
            # half the occurrences in the query's own inflection (the first one always: the document
            # shares a term with its query whatever the stemmer), the rest in a random inflection
            same = rq.random(len(planted)) < 0.5
            same[0] = True
            suffix = np.where(same, np.repeat(kept_q, tf), _suffix(rq.random(len(planted))))
            inj_doc.append(np.full(len(planted), d, dtype=np.int64))
            inj_form.append(sf.lemma_form(planted, suffix))
            qrels.append((qid, d))
        dis = rq.integers(0, n_docs, size=n_distract)
        d_idx, t_idx = np.nonzero(rq.random((n_distract, m)) < 0.35)
        inj_doc.append(dis[d_idx])
        inj_form.append(sf.lemma_form(terms[t_idx], _suffix(rq.random(len(t_idx)))))
    inj_doc = np.concatenate(inj_doc).astype(np.int64)
    inj_form = np.concatenate(inj_form).astype(np.int64)
    order = np.lexsort((rq.random(len(inj_doc)), inj_doc))  # by document, in random order within one
    inj_doc, inj_form = inj_doc[order], inj_form[order]
    # each planted term gets its own stratum of the document's text, so none overwrites another
    first = np.searchsorted(inj_doc, inj_doc, side="left")
    inj_rank = np.arange(len(inj_doc)) - first
    inj_count = np.searchsorted(inj_doc, inj_doc, side="right") - first
    inj_u = rq.random(len(inj_doc))

    # -- documents, chunk by chunk ----------------------------------------------------------------
    corpus_path = out / "corpus.jsonl.gz"
    words_total = 0
    with open(corpus_path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=1,
                                                        mtime=0) as gz:
        for ci, lo in enumerate(range(0, n_docs, CHUNK_DOCS)):
            hi = min(n_docs, lo + CHUNK_DOCS)
            rc = _rng(seed, 4, ci)
            lens = text_len[lo:hi]
            n_tok = int(lens.sum())
            u = rc.random(n_tok)
            tok = np.empty(n_tok, dtype=np.int64)
            is_fn = u < 0.36
            is_num = (u >= 0.36) & (u < 0.38)
            is_lem = ~(is_fn | is_num)
            tok[is_fn] = np.searchsorted(function_cdf, rc.random(int(is_fn.sum())), side="right").clip(
                max=sf.n_function - 1)
            n_num = int(is_num.sum())
            years = rc.random(n_num) < 0.6
            tok[is_num] = sf.number_base + np.where(years, rc.integers(1800, 2025, n_num), rc.integers(0, 100, n_num))
            n_lem = int(is_lem.sum())
            lem = np.searchsorted(lemma_cdf, rc.random(n_lem), side="right").clip(max=n_lemmas - 1)
            suf = _suffix(rc.random(n_lem))
            tok[is_lem] = sf.lemma_form(lem, suf)
            # plant the query terms in relevant and distractor documents
            doc_start = np.concatenate([[0], np.cumsum(lens)])
            a, b = np.searchsorted(inj_doc, [lo, hi])
            if b > a:
                d_local = inj_doc[a:b] - lo
                stratum = (inj_rank[a:b] + inj_u[a:b]) / inj_count[a:b]
                pos = doc_start[d_local] + np.minimum((stratum * lens[d_local]).astype(np.int64), lens[d_local] - 1)
                tok[pos] = inj_form[a:b]
            # separators: mostly a space, some commas and full stops, a final full stop
            v = rc.random(n_tok)
            sep = np.where(v < 0.06, 1, np.where(v < 0.11, 2, 0))
            sep[doc_start[1:] - 1] = 3
            segs = np.empty(2 * n_tok, dtype=np.int64)
            segs[0::2] = tok
            segs[1::2] = sf.sep_base + sep
            text_bytes, ends = sf.gather(segs)
            text_end = np.concatenate([[0], ends[1::2][doc_start[1:] - 1]])
            # titles: the article's words, separated by spaces
            arts = article_of[lo:hi]
            t_lens = title_len[arts]
            t_doc_start = np.concatenate([[0], np.cumsum(t_lens)])
            t_tok = title_tok[np.repeat(title_ptr[arts] - t_doc_start[:-1], t_lens) + np.arange(int(t_doc_start[-1]))]
            t_sep = np.zeros(len(t_tok), dtype=np.int64)
            segs = np.empty(2 * len(t_tok), dtype=np.int64)
            segs[0::2] = t_tok
            segs[1::2] = sf.sep_base + t_sep
            title_bytes, t_ends = sf.gather(segs)
            # a title ends before its trailing space
            title_end = np.concatenate([[0], t_ends[1::2][t_doc_start[1:] - 1]])
            lines = [
                b'{"_id": "doc%d", "title": "%s", "text": "%s"}\n' % (
                    lo + i, title_bytes[title_end[i]:title_end[i + 1] - 1], text_bytes[text_end[i]:text_end[i + 1]])
                for i in range(hi - lo)
            ]
            gz.write(b"".join(lines))
            words_total += n_tok + int(t_lens.sum())
            if progress:
                progress(hi, n_docs)

    with open(out / "queries.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for qid, text in queries:
            f.write(json.dumps({"_id": qid, "text": text, "metadata": {}}) + "\n")
    with open(out / "qrels" / "test.tsv", "w", encoding="utf-8", newline="\n") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid, d in qrels:
            f.write(f"{qid}\tdoc{d}\t1\n")
    stats = {
        "synthetic": True,
        "generator_version": GENERATOR_VERSION,
        "shape": "BEIR NQ (synthetic)",
        "scale": scale,
        "seed": seed,
        "n_docs": n_docs,
        "n_queries": n_queries,
        "n_qrels": len(qrels),
        "content_lemmas": n_lemmas,
        "words_per_doc": round(words_total / n_docs, 2),
        "words_per_query": round(float(np.mean([len(t.split()) for _, t in queries])), 2),
        "relevant_per_query": round(len(qrels) / n_queries, 3),
        "corpus_bytes": corpus_path.stat().st_size,
    }
    (out / "synthetic.json").write_text(json.dumps(stats, indent=1, sort_keys=True) + "\n")
    stats["seconds"] = round(time.perf_counter() - t_start, 2)  # not written: files stay byte-identical
    return stats


# -- large-corpus benchmark --------------------------------------------------------------------------
def _tree_pss_kb(root: int) -> int:
    """The sum of PSS (kB) over process `root` and its descendants (Linux /proc; 0 elsewhere)."""
    import os

    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                total += sum(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, ValueError):
            pass
    return total


def _load() -> str:
    import os

    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_build(corpus: Path, index: Path, postings: str, memory: float, positions: bool = False,
                env: dict | None = None, analyzer: str | None = None) -> dict:
    """`sounding index CORPUS --out INDEX --postings P --memory GIB [--analyzer A]` in a child process
    (environment `env`, default this one's); wall seconds, CPU seconds and the tree's peak PSS."""
    import os
    import shutil
    import subprocess
    import tempfile

    shutil.rmtree(index, ignore_errors=True)
    # the whole command, as a user runs it (any commit's: the options are the same since packed postings came)
    cmd = [sys.executable, "-m", "sounding", "index", str(corpus), "--out", str(index), "--postings", postings,
           "--memory", str(memory), *(["--positions"] if positions else []),
           *(["--analyzer", analyzer] if analyzer else [])]
    t0 = time.perf_counter()
    load = _load()
    err = tempfile.TemporaryFile()  # the command's messages, shown if it fails (a pipe could fill while we poll)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
    peak, peak_at = 0, 0.0
    while True:
        pss = _tree_pss_kb(proc.pid)
        if pss > peak:
            peak, peak_at = pss, time.perf_counter() - t0
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)  # CPU time of the build and its reaped workers
        if pid:
            break
        time.sleep(0.2)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        err.seek(0)
        raise SystemExit(f"index build failed ({os.waitstatus_to_exitcode(status)}): {' '.join(cmd)}: "
                         f"{err.read().decode(errors='replace').strip()[-300:]}")
    return {"postings": postings, "positions": positions, "build_s": round(seconds, 1), "build_cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "build_peak_pss_gib": round(peak / 2**20, 2), "build_peak_at_s": round(peak_at, 1), "load_at_start": load,
            "load": _load()}


def index_sizes(index: Path) -> dict:
    """Bytes on disk: the whole generation, and each field's postings (raw: 4 + tf bytes a posting;
    packed: the words and per-block arrays of the field's blocks)."""
    from sounding.index import Index
    from sounding.index.packed import BLOCK

    ix = Index(index, verify=False)
    out = {"total_mib": round(ix.size_bytes() / 2**20, 1)}
    for f, name in enumerate(ix.manifest.fields):
        a, z = int(ix.offsets[f, 0]), int(ix.offsets[f, -1])
        if ix.postings == "packed":
            b0, b1 = int(ix.first_blocks[f, 0]), int(ix.first_blocks[f, -1])
            size = 4 * (int(ix.blk_start[b1]) - int(ix.blk_start[b0])) + 14 * (b1 - b0)
        else:
            size = (z - a) * (4 + ix.tfs.dtype.itemsize)
        out[f"{name}_mib"] = round(size / 2**20, 1)
        out[f"{name}_bytes_per_posting"] = round(size / max(1, z - a), 2)
    return out


_SEARCH = """
import json, os, sys, time
from sounding import Searcher
index, queries, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
qs = [(q["_id"], q["text"]) for q in map(json.loads, open(queries))]
s = Searcher(index)
s.search(qs[:10], k=k)  # the BM25 setting and the compiled kernel: outside the timing
best = 0.0
for _ in range(3):
    best = max(best, len(qs) / s.search(qs, k=k).seconds)
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
print(json.dumps({"qps": round(best), "peak_rss_gib": round(hwm / 2**20, 2), "load": os.getloadavg()[0]}))
"""


def bench_search(index: Path, queries: Path, k: int) -> dict:
    import subprocess

    res = subprocess.run([sys.executable, "-c", _SEARCH, str(index), str(queries), str(k)], check=True,
                         capture_output=True, text=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.05, help="documents = round(2,681,468 × scale) (default 0.05)")
    ap.add_argument("--out", required=True, help="output folder (BEIR layout)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bench", help="also build and search indexes of the corpus in this folder (see above)")
    ap.add_argument("--postings", nargs="+", default=["packed"], choices=["raw", "packed"])
    ap.add_argument("--memory", type=float, default=1.0, help="the build's --memory (GiB)")
    ap.add_argument("--search-only", action="store_true", help="search the indexes already under --bench")
    ap.add_argument("--positions", action="store_true", help="build with positions (raw postings only)")
    args = ap.parse_args(argv)
    if args.scale <= 0:
        ap.error("--scale must be positive")

    def progress(done, total):
        print(f"\r  {done:,}/{total:,} documents", end="", file=sys.stderr, flush=True)

    meta = Path(args.out) / "synthetic.json"
    if not (args.bench and meta.is_file() and json.loads(meta.read_text()).get("scale") == args.scale):
        stats = generate(args.out, args.scale, args.seed, progress=progress)
        print(file=sys.stderr)
        print(json.dumps(stats, indent=1))
    if args.bench:
        for postings in args.postings:
            index = Path(args.bench) / f"synth-{args.scale:g}-{postings}{'-positions' * args.positions}"
            row = {"scale": args.scale, "postings": postings}
            if not args.search_only:
                row |= bench_build(Path(args.out) / "corpus.jsonl.gz", index, postings, args.memory, args.positions)
            row |= index_sizes(index)
            for k in (10, 100, 1000):
                row[f"top{k}"] = bench_search(index, Path(args.out) / "queries.jsonl", k)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
