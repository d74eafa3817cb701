"""Named lists of measures: the ones a command or a report uses by default, and trec_eval's official set.

A set's name given as a measure (`-m official`) stands for its members. Which measures a `sounding run` row
holds is a choice of the harness, made here once; what each measure means is in its own module.
"""
from __future__ import annotations

DEFAULT = ("nDCG@10", "R@100", "RR@100", "judged@10")  # `sounding eval` without -m

# what trec_eval 10 prints without -m (its "official" set, measures.c), in its order and with its names
OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            *(f"iprec_at_recall_{r / 10:.2f}" for r in range(11)),
            *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)))

BEIR = ("nDCG@10", "R@100", "R@1000", "RR@100", "judged@10", "nDCG'@10", "bpref")  # a BEIR row of `sounding run`
MRTYDI = ("RR@100", "R@100", "Success@100", "nDCG@10", "judged@10", "nDCG'@10", "bpref")  # a Mr. TyDi row

# the order reports list a row's measures in (any other measure follows, sorted)
REPORT_ORDER = ("nDCG@10", "R@100", "R@1000", "RR@100", "Success@100", "judged@10", "nDCG'@10", "bpref")

SETS = {"official": OFFICIAL, "default": DEFAULT}
