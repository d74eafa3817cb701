"""Run as the program, `sounding search` and `sounding eval` end the process once their output is out
(cli.app.exit_when_done: no interpreter teardown, so atexit handlers do not run); failures exit the
ordinary way, and `main(argv)` called in a process returns."""
import json
import subprocess
import sys

from sounding.cli import main

PROGRAM = ("import atexit, sys; atexit.register(lambda: print('teardown', file=sys.stderr)); "
           "from sounding.cli import main; sys.argv[0] = 'sounding'; sys.exit(main())")


def _sounding(*args):
    return subprocess.run([sys.executable, "-c", PROGRAM, *map(str, args)], capture_output=True, text=True, timeout=300)


def test_eval_ends_its_process_once_the_scores_are_printed(tmp_path, capsys):
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    run.write_text("q1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq2 Q0 d3 1 5.0 t\n")
    r = _sounding("eval", qrels, run, "-m", "nDCG@10", "--json")
    assert r.returncode == 0, r.stderr
    assert "teardown" not in r.stderr
    printed = json.loads(r.stdout)
    assert main(["eval", str(qrels), str(run), "-m", "nDCG@10", "--json"]) == 0  # in process: returns
    assert json.loads(capsys.readouterr().out) == printed
    r = _sounding("eval", qrels, run, "-m", "nDCG@10", "--table")  # a usage error: the ordinary exit
    assert r.returncode == 2 and "teardown" in r.stderr
    table = _sounding("eval", qrels, run, "-m", "nDCG@10")
    assert table.returncode == 0 and "nDCG@10" in table.stdout and "teardown" not in table.stderr
