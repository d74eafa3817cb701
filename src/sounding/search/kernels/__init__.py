"""The compiled BM25 kernels (numba, nogil): each takes its arguments as named tuples of arrays, writes one
row of hits per query, and holds no Python object, so a search thread runs without the GIL.

Shared pieces (public, imported by the kernels below):
    selection    where hits go (Ranking, TopK, Selection) and the top-k selection (radix select, heap)
    window       document windows and MaxScore pruning: a window's scratch, bounds, θ, closing a window
    bounds       block maxima (and the impacts they bound) of a BM25 setting, made list by list
    postings     the postings a kernel reads: raw, packed, held decoded; `term_postings` for either form
    clauses      a batch's clauses (field, term, weight, group), built from matched terms

Kernels (which layout uses which: search/layouts.py KINDS, search/dispatch.py KERNELS):
    windowed         the sum kernel (flat, multifield) over raw postings, pruned or not
    windowed_packed  the same over packed postings; the lists a setting holds decoded
    grouped          the pruned kernel of the grouped layouts (multifield-max, bm25f)
    exhaustive       their term-at-a-time kernels, every posting scored (pruning off: the reference)
    ties             Anserini's tie handling of a top k
    proximity        the term-proximity bonus of a top k

Nothing is imported here: a caller loads the kernels it uses.
"""
