"""R@k: recall at k (trec_eval's `recall.k`): relevant hits in the top k over all relevant judgements (0 when
there are none). Relevant: grade >= rel."""
from .base import at_cutoff


def value(q, m) -> float:
    q = m.ranking(q)
    rel = m.param("rel")
    num_rel = q.num_rel(rel)
    return q.within(m.k, rel) / num_rel if num_rel else 0.0


FAMILY = at_cutoff("R", "Recall at k: relevant hits in the top k / relevant judgements.", value, "recall_{k}",
                   spellings=("recall",))
