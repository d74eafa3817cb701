"""`sounding --help`: the commands in groups, in the order of use, each with an example line, and fast
(neither numpy, numba nor scipy is imported to print it)."""
import shlex
import subprocess
import sys

from sounding.cli import app
from sounding.cli.app import HELP_GROUPS
from typer.main import get_command


def _help() -> str:
    r = subprocess.run([sys.executable, "-m", "sounding", "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_every_command_is_in_a_group_and_listed_in_order_with_its_example():
    group = get_command(app)
    registered = set(group.commands)
    listed = [name for _, cmds in HELP_GROUPS for name, _ in cmds]
    assert sorted(listed) == sorted(registered)  # no command left to "Other commands", none listed twice
    text = _help()
    assert "Other commands" not in text
    positions = [text.index(f"\n  {name} ") for name in listed]
    assert positions == sorted(positions)  # the groups' order, the main job first
    assert listed[0] == "run" and text.index("The main job:") < text.index("Data:")
    for _, cmds in HELP_GROUPS:
        for name, example in cmds:
            assert example in text
            words = shlex.split(example)
            assert words[:2] == ["sounding", name]
            options = {o for p in group.commands[name].params for o in p.opts}
            assert {w for w in words[2:] if w.startswith("-")} <= options, (name, example)


def test_help_imports_no_numeric_library():
    script = ("import sys\nfrom sounding.cli import main\nsys.argv = ['sounding', '--help']\n"
              "try:\n    main()\nexcept SystemExit:\n    pass\n"
              "print(sorted(m for m in ('numpy', 'numba', 'scipy') if m in sys.modules), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.stderr.strip().splitlines()[-1] == "[]", r.stderr


def test_each_command_is_registered_by_the_module_its_row_names():
    from sounding.cli.app import COMMAND_MODULES

    registered = {c.name: c.callback.__module__ for c in app.registered_commands}
    assert registered.pop("version") == "sounding.cli.app"  # the application's own, always there
    assert registered == {name: f"sounding.cli.{module}" for name, module in COMMAND_MODULES.items()}


def test_a_command_imports_only_its_own_module(tmp_path):
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q1 0 d1 1\n")
    script = ("import sys\nfrom sounding.cli import main\n"
              f"main(['eval', {str(qrels)!r}, {str(run)!r}, '--json'])\n"
              "print(sorted(m for m in sys.modules if m.startswith('sounding.cli.')), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert '"nDCG@10": 1.0' in r.stdout
    loaded = eval(r.stderr.strip().splitlines()[-1])
    assert "sounding.cli.eval_cmds" in loaded
    assert not {m for m in loaded if m.endswith(("_cmd", "_cmds"))} - {"sounding.cli.eval_cmds"}, loaded
