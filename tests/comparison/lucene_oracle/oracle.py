"""Compare Sounding's `english-lucene` analysis (and BM25 runs) with Lucene's, text by text.

Runs LuceneOracle.java (Lucene and Anserini from the fatjar Pyserini bundles, Java >= 21) over the
documents (title + " " + text, as Pyserini's flat BEIR indexes hold them) and queries of BEIR
datasets, analyses the same texts with Sounding, and reports every text whose terms differ, grouped
into classes, with examples. See README.md for the commands.

    python oracle.py --jar JAR diff [--stage analyze|tokenize] [--datasets ...] [--data DIR] [--cache DIR]
    python oracle.py --jar JAR fuzz [--stage tokenize|analyze] [--n 20000] [--seed 0]
    python oracle.py --jar JAR porter [--random 50000]   # Lucene's Porter vs ours, every distinct word
    python oracle.py --jar JAR tables                     # the scanner table embedded in standard.py
    python oracle.py --jar JAR runs --work DIR            # Anserini BM25 runs vs Sounding's, and scores

Exit status 0 when nothing differs, 1 otherwise.
"""
from __future__ import annotations

import argparse
import base64
import collections
import difflib
import gzip
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
JAVA_SOURCE = HERE / "LuceneOracle.java"
DATASETS = ["scifact", "nfcorpus", "arguana"]


# --- Java side -------------------------------------------------------------------------------------


def find_java(min_version: int = 21) -> str | None:
    """A `java` of at least `min_version` ($JAVA_HOME, then PATH, then /usr/lib/jvm/*), or None."""
    cands = []
    if os.environ.get("JAVA_HOME"):
        cands.append(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    if shutil.which("java"):
        cands.append(Path(shutil.which("java")))
    cands += sorted(Path("/usr/lib/jvm").glob("*/bin/java"), reverse=True)
    for java in cands:
        if java.exists() and java_version(str(java)) >= min_version:
            return str(java)
    return None


def java_version(java: str) -> int:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60).stderr
    except (OSError, subprocess.SubprocessError):
        return 0
    for tok in out.split():
        tok = tok.strip('"')
        if tok[:1].isdigit():
            major = tok.split(".")[0].split("-")[0].split("+")[0]
            return int(major) if major.isdigit() else 0
    return 0


def escape(s: str) -> str:
    """One text per line for LuceneOracle.java: backslash, CR, LF, tab and lone surrogates escaped."""
    out = s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if any("\ud800" <= c <= "\udfff" for c in out):  # lone surrogates (from JSON escapes)
        out = "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in out)
    return out


def unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "u":
                out.append(chr(int(s[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def run_oracle(jar: str, mode: str, lines: list[str], java: str | None = None) -> list[list[str]]:
    """Lucene's output for each input text (mode analyze|tokenize|porter|"lang L"): a list of terms
    each. `jar` is a class path (one jar, or several joined by os.pathsep)."""
    java = java or find_java()
    if java is None:
        raise SystemExit("no Java >= 21 found (set JAVA_HOME)")
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "in.txt"
        with open(inp, "w", encoding="utf-8", newline="\n") as f:
            for line in lines:
                f.write(escape(line) + "\n")
        with open(inp, "rb") as f:
            res = subprocess.run([java, "-cp", jar, str(JAVA_SOURCE), *mode.split()], stdin=f, capture_output=True, check=False)
    if res.returncode != 0:
        raise SystemExit(f"oracle failed ({res.returncode}):\n{res.stderr.decode('utf-8', 'replace')}")
    out = res.stdout.decode("utf-8").split("\n")  # not splitlines(): U+2028 etc. may occur in terms
    assert out[-1] == "" and len(out) == len(lines) + 1, (len(out), len(lines))
    return [[unescape(t) for t in line.split("\t")] if line else [] for line in out[:-1]]


def oracle_tables(jar: str) -> str:
    java = find_java()
    res = subprocess.run([java, "-cp", jar, str(JAVA_SOURCE), "tables"], capture_output=True, check=True)
    return res.stdout.decode("ascii")


def pack_tables(text: str) -> str:
    """The oracle's `tables` dump as the compact blob standard.py embeds (base85 of zlib of bytes):

    n_classes, n_states; per state its emit code (0 not accepting, 1 accept and skip — the
    catch-all rule — 2 accept a token); per state and class the next state + 1 (0: none); then the
    code-point → class map as runs (LEB128 run length, class byte) from U+0000 to U+10FFFF.
    """
    arrays, runs, buffer = {}, [], None
    for line in text.splitlines():
        f = line.split()
        if f[0] == "cmap":
            runs.append((int(f[2]) - int(f[1]) + 1, int(f[3])))
        elif f[0] == "buffer":
            buffer = int(f[1])
        else:
            arrays[f[0]] = [int(x) for x in f[1:]]
    assert buffer == 255 and arrays["lexstate"] == [0, 0], (buffer, arrays["lexstate"])
    n_states = len(arrays["rowmap"])
    n_classes = max(c for _, c in runs) + 1
    assert sum(n for n, _ in runs) == 0x110000
    out = bytearray([n_classes, n_states])
    for s in range(n_states):  # action 1 is the catch-all rule `[^] { break; }`; 2..9 return a type
        accepting = arrays["attribute"][s] & 1
        out.append(0 if not accepting else 1 if arrays["action"][s] == 1 else 2)
    for s in range(n_states):
        row = arrays["rowmap"][s]
        out += bytes(arrays["trans"][row + c] + 1 for c in range(n_classes))
    for n, c in runs:
        while n >= 0x80:
            out.append(0x80 | (n & 0x7F))
            n >>= 7
        out.append(n)
        out.append(c)
    return base64.b85encode(zlib.compress(bytes(out), 9)).decode("ascii")


# --- texts -------------------------------------------------------------------------------------------


def default_data_dir() -> Path:
    env = os.environ.get("SOUNDING_DATA")
    return Path(env) if env else REPO.parent / "shared" / "datasets"


def load_texts(data: Path, name: str) -> list[tuple[str, str]]:
    """(label, text) for every document (title + " " + text) and every query of a BEIR dataset."""
    base = data / "beir" / name
    texts = []
    with gzip.open(base / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            o = json.loads(line)
            texts.append((f"doc:{o['_id']}", (o.get("title") or "") + " " + (o.get("text") or "")))
    with gzip.open(base / "queries.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            o = json.loads(line)
            texts.append((f"query:{o['_id']}", o["text"]))
    return texts


def lucene_cached(jar: str, mode: str, name: str, texts: list[str], cache: Path | None) -> list[list[str]]:
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        stamp = zlib.crc32("\n".join(texts).encode("utf-8", "surrogatepass")) ^ zlib.crc32(Path(jar).name.encode())
        path = cache / f"{name}.{mode}.{stamp:08x}.json.gz"
        if path.exists():
            with gzip.open(path, "rt", encoding="utf-8") as f:
                return json.load(f)
    out = run_oracle(jar, mode, texts)
    if cache is not None:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=True)
    return out


def class_samples(rng: random.Random, per_class: int = 12) -> list[str]:
    """A few characters of every character class of Lucene's scanner (from standard.py's tables)."""
    from sounding.analysis import standard

    runs = standard._CLASS_RUNS + [(0x110000, -1)]
    by_class = collections.defaultdict(list)
    for (first, cls), (nxt, _) in zip(runs, runs[1:]):
        by_class[cls].append((first, nxt))
    out = []
    for cls, spans in sorted(by_class.items()):
        for _ in range(per_class):
            first, nxt = rng.choice(spans)
            cp = rng.randrange(first, nxt)
            if not 0xD800 <= cp < 0xE000:
                out.append(chr(cp))
    return out


def random_texts(rng: random.Random, n: int) -> list[str]:
    """Short strings mixing every scanner class with the characters that join or break words,
    ASCII-only strings (the `re` fast path), long runs (the 255-unit buffer) and filter cases."""
    pool = class_samples(rng) + list(" .,'’＇:;_-\"#*\u200d\ufe0f\u20e3aA1sSİΣ\t\n\u00a0\u202f\u3000") * 3
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 24))) for _ in range(n)]
    texts += ["".join(rng.choice("aZ19_.,;:'\"#*- ") for _ in range(rng.randint(1, 16))) for _ in range(n // 2)]
    for _ in range(max(20, n // 1000)):
        unit = rng.choice(["a", "ab1", "a.", "1,", "\U0001d400", "🏻", "ก", "x\u0301", "_", "a’"])
        texts.append(unit * rng.randint(80, 200) + rng.choice(["", ".b", "!", " z", "’s"]))
    for _ in range(n // 4):  # case, possessives, stop words, stems
        words = rng.choices(["The", "CAT'S", "dog’S", "İstanbul", "ΟΔΟΣ", "a", "Ａ", "running", "ＲＵＮＳ", "©"], k=3)
        texts.append(" ".join(words) + rng.choice(["", "'s", "’S", "＇s", "s"]))
    return texts


SUFFIXES = ["", "s", "sses", "ies", "eed", "ed", "ing", "at", "bl", "iz", "y", "ational", "tional", "enci", "anci",
            "izer", "bli", "alli", "entli", "eli", "ousli", "ization", "ation", "ator", "alism", "iveness",
            "fulness", "ousness", "aliti", "iviti", "biliti", "logi", "icate", "ative", "alize", "iciti", "ical",
            "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "sion",
            "tion", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll", "logy", "bly"]


def random_words(rng: random.Random, n: int) -> list[str]:
    """Lower-case words that reach every Porter rule, with non-ASCII and astral letters."""
    letters = "aeiouy" * 4 + "bcdfghjklmnpqrstvwxyz" + "é\u0130\U0001d400"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(1, 10))) + rng.choice(SUFFIXES) for _ in range(n)]


# --- Sounding side -----------------------------------------------------------------------------------


def sounding(mode: str):
    """Sounding's counterpart of an oracle mode: a callable text -> list of terms."""
    if mode == "tokenize":
        from sounding.analysis.standard import standard_tokenize

        return standard_tokenize
    if mode == "porter":
        from sounding.analysis.porter import LuceneStemmer

        stem = LuceneStemmer().stem_words
        return lambda w: stem([w])
    from sounding.analysis import get_analyzer

    return get_analyzer("english-lucene")


# --- differences ---------------------------------------------------------------------------------------


def classify(lucene: list[str], ours: list[str]) -> str:
    """A coarse name for one differing stretch of terms (an opcode of difflib)."""
    chars = "".join(lucene + ours)
    if any(len(t) >= 200 for t in lucene + ours):
        return "max token length (255 UTF-16 units, scanner buffer)"
    if lucene and not ours and all(any(unicodedata.category(c) == "So" or c in "\u00a9\u00ae\u203c\u2049\u2122\u2139" for c in t) for t in lucene):
        return "emoji / pictographic tokens"
    if len(lucene) == len(ours) and all(a.lower() == b.lower() for a, b in zip(lucene, ours)):
        return "case"
    if len(lucene) == len(ours) and all(a[:3] == b[:3] for a, b in zip(lucene, ours)) and chars.isascii():
        return "stemmer"
    if not chars.isascii():
        scripts = sorted({unicodedata.name(c, "?").split()[0] for c in chars if not c.isascii()})
        return "non-ASCII: " + ",".join(scripts[:4])
    return "ASCII boundaries"


def diff_texts(labels, lucene_out, our_out):
    """(differing labels, {class: Counter of (lucene stretch, our stretch)}, {class: labels})."""
    classes: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    texts_per_class: dict[str, set] = collections.defaultdict(set)
    differing = []
    for label, luc, ours in zip(labels, lucene_out, our_out):
        if luc == ours:
            continue
        differing.append(label)
        for op, a0, a1, b0, b1 in difflib.SequenceMatcher(a=luc, b=ours, autojunk=False).get_opcodes():
            if op != "equal":
                cls = classify(luc[a0:a1], ours[b0:b1])
                classes[cls][(tuple(luc[a0:a1]), tuple(ours[b0:b1]))] += 1
                texts_per_class[cls].add(label)
    return differing, classes, texts_per_class


def report(name, n, differing, classes, texts_per_class, top: int = 8) -> None:
    docs = sum(1 for d in differing if d.startswith("doc:"))
    print(f"== {name}: {len(differing)} of {n} texts differ ({docs} documents, {len(differing) - docs} queries)")
    for cls in sorted(classes, key=lambda c: -len(texts_per_class[c])):
        cnt = classes[cls]
        print(f"  [{cls}] {len(texts_per_class[cls])} texts, {sum(cnt.values())} stretches")
        for (luc, ours), k in cnt.most_common(top):
            print(f"      {k:5d}x lucene={list(luc)!r:.120} ours={list(ours)!r:.120}")


# --- BM25 runs as Pyserini writes them ---------------------------------------------------------------


def anserini_scores(hits: dict[str, float], k: int = 1000) -> dict[str, float]:
    """A run as Pyserini/Anserini hand it to trec_eval: Lucene's order (score descending, then doc
    id ascending), the top k, Anserini's ScoreTiesAdjusterReranker (each float score rounded to
    1e-4 in double, then 1e-6 less per tie within 1e-4, in float), and Pyserini's "%.6f" run file."""
    import numpy as np

    f32 = np.float32
    out, prev, dup = {}, None, 0
    for i, (doc, score) in enumerate(sorted(hits.items(), key=lambda x: (-x[1], x[0]))[:k]):
        r = f32(math.floor(float(f32(score)) * 1e4 + 0.5) / 1e4)
        if i == 0 or f32(prev - r) > f32(1e-4):
            dup = 0
        else:
            dup += 1
            r = f32(r - f32(f32(1e-6) * dup))
        prev = r
        out[doc] = float(f"{float(r):.6f}")
    return out


def cmd_runs(args) -> int:
    """Index and search each dataset with Anserini (IndexCollection, SearchCollection -bm25
    -removeQuery) and with Sounding (lucene_norms); compare the runs and their scores."""
    import types

    import numpy as np
    import pytrec_eval

    from sounding.index import build_index
    from sounding.retrieval.search import Searcher

    java, work, bad = find_java(), Path(args.work), 0
    for name in args.datasets:
        base = Path(args.data) / "beir" / name
        d = work / name
        (d / "corpus").mkdir(parents=True, exist_ok=True)
        docs = [json.loads(l) for l in gzip.open(base / "corpus.jsonl.gz", "rt", encoding="utf-8")]
        with open(d / "corpus" / "corpus.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(o) + "\n" for o in docs)
        qrels: dict[str, dict[str, int]] = {}
        for i, line in enumerate(open(base / "qrels" / "test.tsv", encoding="utf-8")):
            if i:
                q, doc, rel = line.strip().split("\t")
                qrels.setdefault(q, {})[doc] = int(rel)
        queries = {o["_id"]: o["text"] for o in map(json.loads, gzip.open(base / "queries.jsonl.gz", "rt", encoding="utf-8")) if o["_id"] in qrels}
        with open(d / "topics.tsv", "w", encoding="utf-8") as f:
            f.writelines(f"{q}\t{' '.join(t.split())}\n" for q, t in queries.items())
        build_index((types.SimpleNamespace(id=o["_id"], title=o.get("title") or "", text=o.get("text") or "") for o in docs), d / "sounding")
        searcher = Searcher(d / "sounding")
        for layout, collection, fields in [("flat", "BeirFlatCollection", []), ("multifield", "BeirMultifieldCollection", ["-fields", "title"])]:
            index, run_file = d / f"lucene-{layout}", d / f"run.{layout}.txt"
            if not index.exists():
                subprocess.run([java, "-cp", args.jar, "io.anserini.index.IndexCollection", "-collection", collection,
                                "-input", str(d / "corpus"), "-index", str(index), "-generator",
                                "DefaultLuceneDocumentGenerator", "-threads", "1", *fields], check=True, capture_output=True)
            search_fields = ["-fields", "contents=1.0", "title=1.0"] if layout == "multifield" else []
            subprocess.run([java, "-cp", args.jar, "io.anserini.search.SearchCollection", "-index", str(index),
                            "-topics", str(d / "topics.tsv"), "-topicReader", "TsvString", "-output", str(run_file),
                            "-bm25", "-removeQuery", "-hits", "1000", "-parallelism", "1", *search_fields],
                           check=True, capture_output=True)
            lucene: dict[str, list] = {}
            for line in open(run_file, encoding="utf-8"):
                q, _, doc, _, score, _ = line.split()
                lucene.setdefault(q, []).append((doc, score))
            res = searcher.search(queries, layout=layout, k1=0.9, b=0.4, k=1100, lucene_norms=True)
            raw = res.to_run(remove_self_hits=True)
            ours = {q: anserini_scores(h) for q, h in raw.items()}
            exact = {q: dict(sorted(h.items(), key=lambda x: (-x[1], x[0]))[:1000]) for q, h in raw.items()}
            same = 0
            for q in queries:
                mine = [(doc, f"{s:.6f}") for doc, s in ours.get(q, {}).items()]
                theirs = lucene.get(q, [])
                n = min(len(mine), len(theirs))  # -removeQuery drops own hits after the top 1000
                same += [doc for doc, _ in mine[:n]] == [doc for doc, _ in theirs[:n]] and all(
                    abs(float(a) - float(b)) < 2e-6 for (_, a), (_, b) in zip(mine[:n], theirs[:n]))
            bad += len(queries) - same
            line = [f"{name} {layout}: {same}/{len(queries)} rankings identical to Anserini's"]
            for label, run in [("anserini", {q: {doc: float(s) for doc, s in v} for q, v in lucene.items()}),
                               ("sounding+ties", ours), ("sounding exact", exact)]:
                ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recall_100"}).evaluate(run)
                nd = np.mean([ev[q]["ndcg_cut_10"] if q in ev else 0.0 for q in qrels])
                rc = np.mean([ev[q]["recall_100"] if q in ev else 0.0 for q in qrels])
                line.append(f"{label} {nd:.4f}/{rc:.4f}")
            print("; ".join(line), flush=True)
    return 1 if bad else 0


# --- commands ------------------------------------------------------------------------------------------


def cmd_diff(args) -> int:
    ours = sounding(args.stage)
    bad = 0
    for name in args.datasets:
        items = load_texts(Path(args.data), name)
        labels, texts = [l for l, _ in items], [t for _, t in items]
        luc = lucene_cached(args.jar, args.stage, name, texts, Path(args.cache) if args.cache else None)
        differing, classes, per = diff_texts(labels, luc, [ours(t) for t in texts])
        report(name, len(texts), differing, classes, per)
        bad += len(differing)
    return 1 if bad else 0


def cmd_fuzz(args) -> int:
    texts = random_texts(random.Random(args.seed), args.n)
    luc = run_oracle(args.jar, args.stage, texts)
    ours = sounding(args.stage)
    bad = [(t, l, ours(t)) for t, l in zip(texts, luc) if l != ours(t)]
    print(f"{len(texts)} random texts; {len(bad)} differ")
    for t, l, o in bad[:30]:
        print(f"  {t!r:.80}\n    lucene={l!r:.200}\n    ours  ={o!r:.200}")
    return 1 if bad else 0


def cmd_porter(args) -> int:
    from sounding.analysis.porter import LuceneStemmer, lucene_porter

    tok = sounding("tokenize")
    words = set(random_words(random.Random(0), args.random))
    for name in args.datasets:
        for _, t in load_texts(Path(args.data), name):
            words.update(w.lower() for w in tok(t))
    words = sorted(words)
    luc = [x[0] if x else "" for x in run_oracle(args.jar, "porter", words)]
    batch = LuceneStemmer().stem_words(words)
    bad = [(w, l, lucene_porter(w), b) for w, l, b in zip(words, luc, batch) if l != lucene_porter(w) or l != b]
    print(f"{len(words)} distinct words; {len(bad)} differ")
    for w, l, p, b in bad[:40]:
        print(f"  {w!r}: lucene={l!r} port={p!r} batch={b!r}")
    return 1 if bad else 0


def cmd_tables(args) -> int:
    text = oracle_tables(args.jar)
    blob = pack_tables(text)
    print(f"# {len(text)} chars of tables -> {len(blob)} chars of base85", file=sys.stderr)
    print("_SCANNER = (")
    for i in range(0, len(blob), 96):
        print(f'    "{blob[i:i + 96]}"')
    print(")")
    return 0


def main(argv=None) -> int:
    sys.path.insert(0, str(REPO / "src"))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--jar", default=os.environ.get("SOUNDING_LUCENE_JAR"), help="Anserini fatjar ($SOUNDING_LUCENE_JAR)")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("diff", "porter", "runs"):
        s = sub.add_parser(name)
        s.add_argument("--data", default=str(default_data_dir()))
        s.add_argument("--datasets", nargs="+", default=DATASETS)
    sub.choices["diff"].add_argument("--stage", choices=["analyze", "tokenize"], default="analyze")
    sub.choices["diff"].add_argument("--cache", default=None, help="folder to keep Lucene's output between runs")
    sub.choices["porter"].add_argument("--random", type=int, default=50000, help="random words added to the vocabulary")
    sub.choices["runs"].add_argument("--work", required=True, help="folder for the Lucene indexes and runs")
    sub.add_parser("tables")
    s = sub.add_parser("fuzz")
    s.add_argument("--n", type=int, default=20000)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--stage", choices=["analyze", "tokenize"], default="tokenize")
    args = p.parse_args(argv)
    if not args.jar or not Path(args.jar).exists():
        p.error("give the Anserini fatjar with --jar or $SOUNDING_LUCENE_JAR")
    if find_java() is None:
        p.error("no Java >= 21 found (set JAVA_HOME)")
    commands = {"diff": cmd_diff, "fuzz": cmd_fuzz, "porter": cmd_porter, "tables": cmd_tables, "runs": cmd_runs}
    return commands[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
