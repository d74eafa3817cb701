"""Every regression whose data is here passes (`sounding regress`), as CI must show."""
import pytest

from sounding.cli import main


@pytest.mark.realdata
@pytest.mark.slow
def test_all_present_regressions_pass(shared_data, capsys):
    code = main(["regress", "--data-dir", str(shared_data)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "scifact.bm25-flat-lucene-exact" in out and "nfcorpus.bm25-multifield-lucene-exact" in out
