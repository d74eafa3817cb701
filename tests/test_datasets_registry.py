"""The registry: every promised entry, well-formed checksums, honest gaps, helpful unknown-name errors."""
import re

import pytest

from sounding.cli import main
from sounding.datasets import get_info, list_datasets
from sounding.errors import SoundingError

BEIR_18 = ["msmarco", "trec-covid", "nfcorpus", "nq", "hotpotqa", "fiqa", "arguana", "webis-touche2020",
           "cqadupstack", "quora", "dbpedia-entity", "scidocs", "fever", "climate-fever", "scifact",
           "bioasq", "signal1m", "trec-news", "robust04"]
FORUMS = ["android", "english", "gaming", "gis", "mathematica", "physics", "programmers", "stats", "tex",
          "unix", "webmasters", "wordpress"]
LANGS = ["ar", "bn", "en", "fi", "id", "ja", "ko", "ru", "sw", "te", "th"]


def test_every_promised_entry_is_there():
    names = {d.name for d in list_datasets()}
    expected = set(BEIR_18) | {f"cqadupstack-{f}" for f in FORUMS} | {f"mrtydi-{lang}" for lang in LANGS}
    assert expected <= names


@pytest.mark.parametrize("name", ["bioasq", "signal1m", "trec-news", "robust04"])
def test_closed_sets_are_marked_not_downloadable(name):
    info = get_info(name)
    assert not info.downloadable and info.url is None and info.md5 is None
    assert info.licence and "--from" in info.note


def test_checksums_are_well_formed_and_sourced():
    for info in list_datasets():
        if info.md5:
            assert re.fullmatch(r"[0-9a-f]{32}", info.md5), info.name
        if info.sha256:
            assert re.fullmatch(r"[0-9a-f]{64}", info.sha256), info.name
        assert info.checksum_source, info.name
        if info.downloadable:
            assert info.url and info.url.startswith("https://"), info.name


def test_beir_urls_and_published_md5():
    info = get_info("scifact")
    assert info.url == "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip"
    assert info.md5 == "5f7d1de60b170fc8027bb7898e2efca1"
    forum = get_info("cqadupstack-tex")
    assert forum.url.endswith("/cqadupstack.zip") and forum.parent == "cqadupstack"
    assert forum.cache_subpath == "beir/cqadupstack/tex"


def test_mrtydi_has_no_invented_checksum():
    for lang in LANGS:
        info = get_info(f"mrtydi-{lang}")
        assert info.kind == "mrtydi" and info.language == lang
        assert info.md5 is None and info.sha256 is None and "none published" in info.checksum_source
        assert info.url.startswith("https://git.uwaterloo.ca/jimmylin/mr.tydi/-/raw/master/data/mrtydi-v1.1-")
        assert info.cache_subpath == f"mrtydi/{lang}"


def test_cqadupstack_forum_counts_add_up_to_beirs_totals():
    forums = [get_info(f"cqadupstack-{f}") for f in FORUMS]
    assert sum(f.docs for f in forums) == 457_199  # BEIR README: 457K corpus
    assert sum(f.test_queries for f in forums) == 13_145  # BEIR README: 13,145 queries


def test_unknown_name_suggests_close_names():
    with pytest.raises(SoundingError, match="did you mean scifact"):
        get_info("scifcat")


def test_cli_lists_and_shows(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "mrtydi-th" in out and "cqadupstack-wordpress" in out and "robust04" in out
    assert main(["datasets", "arguana"]) == 0
    out = capsys.readouterr().out
    assert "8ad3e3c2a5867cdced806d6503f29b99" in out and "licence" in out


def test_cli_unknown_dataset_is_one_line(capsys):
    assert main(["datasets", "nfcorpsu"]) == 2
    err = capsys.readouterr().err
    assert "did you mean nfcorpus" in err and "Traceback" not in err and err.count("\n") == 1
