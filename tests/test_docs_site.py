"""The documentation site: `mkdocs build --strict` passes (no broken link, missing page or bad API reference)
and builds offline (no external inventory, no plugin that reaches the network)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]


def test_the_site_builds_offline_and_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (mkdocs) is not installed")
    pytest.importorskip("mkdocstrings", reason="the docs extra (mkdocstrings) is not installed")
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    handlers = next(p["mkdocstrings"] for p in config["plugins"] if isinstance(p, dict))["handlers"]
    assert not any({"inventories", "import"} & set(h) for h in handlers.values())  # no objects.inv from the web
    plugins = [p if isinstance(p, str) else next(iter(p)) for p in config["plugins"]]
    assert set(plugins) <= {"search", "offline", "mkdocstrings"}
    assert config["theme"]["font"] is False  # no web fonts
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                           str(tmp_path / "site")], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                               "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"})
    assert done.returncode == 0, done.stderr[-2000:]
    page = (tmp_path / "site" / "reference" / "eval.html").read_text()
    assert "iter_calc" in page and "calc_aggregate" in page  # the API reference is generated from the docstrings
    for name in ("measures", "ecosystem", "devices", "benchmarks", "benchmarks-log"):
        assert (tmp_path / "site" / f"{name}.html").is_file()
    shutil.rmtree(tmp_path / "site")


def test_readme_links_every_page_of_the_site():
    readme = (REPO / "README.md").read_text()
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())

    def pages(nav):
        for item in nav:
            for value in item.values():
                yield from (pages(value) if isinstance(value, list) else [value])

    missing = [p for p in pages(config["nav"]) if p != "index.md" and f"(docs/{p})" not in readme]
    assert not missing, missing
