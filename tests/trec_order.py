"""trec_eval's ranking order, written out independently of Sounding's code (for property tests)."""


def trec_cmp(x, y):
    """trec_eval's comparator, written out: score descending, then strcmp(docid) descending."""
    (dx, sx), (dy, sy) = x, y
    if sx != sy:
        return -1 if sx > sy else 1
    return (dx < dy) - (dx > dy)
