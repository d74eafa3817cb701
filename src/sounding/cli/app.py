"""The typer application every command module registers on, and the console entry point."""
import gc
import os
import sys

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from ..errors import SoundingError, UserCodeError
from ..escape import terminal

# `sounding --help` lists the commands in the order of use, a group at a time, each with an example line.
# A command not named here is still listed, under "Other commands" (tests/test_cli_help.py checks there is none).
HELP_GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("The main job", (
        ("run", "sounding run scifact nfcorpus --gate"),
        ("regress", "sounding regress --only 'scifact.*'"),
    )),
    ("Index and search", (
        ("index", "sounding index scifact --out idx/scifact"),
        ("search", "sounding search idx/scifact -q queries.jsonl --run bm25.trec"),
        ("shard-index", "sounding shard-index nq --out idx/nq --shards 8 --ray local"),
    )),
    ("Evaluate and compare runs", (
        ("eval", "sounding eval qrels.tsv bm25.trec -m nDCG@10 --per-query"),
        ("compare", "sounding compare qrels.tsv mine.trec bm25.trec"),
        ("diff", "sounding diff scifact mine.trec bm25.trec --html diff.html"),
        ("crosscheck", "sounding crosscheck qrels.tsv bm25.trec"),
    )),
    ("Dense, sparse, fusion and reranking", (
        ("encode", "sounding encode scifact"),
        ("dense-search", "sounding dense-search scifact --run dense.trec"),
        ("sparse", "sounding sparse scifact --run sparse.trec"),
        ("fuse", "sounding fuse bm25.trec dense.trec --out fused.trec"),
        ("sweep", "sounding sweep scifact bm25.trec dense.trec"),
        ("rerank", "sounding rerank scifact bm25.trec --out reranked.trec"),
    )),
    ("Data", (
        ("datasets", "sounding datasets"),
        ("fetch", "sounding fetch scifact"),
        ("check-data", "sounding check-data scifact"),
        ("profile", "sounding profile scifact"),
    )),
    ("About", (
        ("version", "sounding version"),
    )),
)
# The module that registers each command: a run imports only the module of the command it runs
# (`load_commands`), so `sounding eval` imports neither the index builder, nor the runner, nor the dense arms.
_MODULE_COMMANDS = {
    "run_cmd": ("run",),
    "regress_cmd": ("regress",),
    "index_cmd": ("index",),
    "search_cmd": ("search",),
    "shard_index_cmd": ("shard-index",),
    "eval_cmds": ("eval", "compare", "diff", "crosscheck"),
    "dense_cmds": ("encode", "dense-search"),
    "sparse_cmd": ("sparse",),
    "fusion_cmds": ("fuse", "sweep"),
    "rerank_cmd": ("rerank",),
    "data_cmds": ("datasets", "fetch", "check-data"),
    "profile_cmd": ("profile",),
}
COMMAND_MODULES = {name: module for module, names in _MODULE_COMMANDS.items() for name in names}


def load_commands(name: str | None = None) -> None:
    """Register command `name` on `app` by importing its module (an unknown or absent name: every module,
    for the help listing and click's "no such command" hint)."""
    import importlib

    for module in [COMMAND_MODULES[name]] if name in COMMAND_MODULES else _MODULE_COMMANDS:
        importlib.import_module(f"{__package__}.{module}")


def _command_name(args: list[str]) -> str | None:
    """The command a command line runs: its first word that is not an option (the root's options,
    --version, --debug and --help, take no value)."""
    return next((a for a in args if not a.startswith("-")), None)


class _GroupedHelp(TyperGroup):
    """click's own help layout (fast: no rich import), with the commands in HELP_GROUPS' groups and order."""

    def format_commands(self, ctx, formatter) -> None:
        shown = {n: c for n in self.list_commands(ctx) if (c := self.get_command(ctx, n)) is not None and not c.hidden}
        groups = [(title, [(n, ex) for n, ex in cmds if n in shown]) for title, cmds in HELP_GROUPS]
        listed = {n for _, cmds in groups for n, _ in cmds}
        groups.append(("Other commands", [(n, "") for n in shown if n not in listed]))
        width = max(map(len, shown), default=0)
        limit = formatter.width - 6 - width
        for title, cmds in groups:
            if not cmds:
                continue
            with formatter.section(title):
                for n, example in cmds:  # one column width for every group; examples are not rewrapped
                    formatter.write(f"{'':>{formatter.current_indent}}{n:<{width}}  "
                                    f"{shown[n].get_short_help_str(limit)}\n")
                    if example:
                        formatter.write(f"{'':>{formatter.current_indent}}{'':<{width}}    {example}\n")


app = typer.Typer(
    name="sounding",
    cls=_GroupedHelp,
    help="Retrieval engine and zero-shot evaluation harness (BEIR, Mr. TyDi).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's own help layout: flags read as flags (typer's rich panels print `<bool>` after them with
    # the click versions we support), and `--help` needs no rich import
    rich_markup_mode=None,
)


@app.command("version")
def version() -> None:
    """Print the Sounding version."""
    from .. import __version__

    print(__version__)


_options = {"debug": False}


def _print_version(asked: bool) -> None:
    if asked:
        from .. import __version__

        print(f"sounding {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print Sounding's version and exit."),
    debug: bool = typer.Option(False, "--debug", help="on an error in your own code (a retriever's factory, "
                               "index or search), also print its full traceback"),
) -> None:
    """Sounding: retrieval engine and zero-shot evaluation harness (BEIR, Mr. TyDi)."""
    _options["debug"] = debug


def shown(text: object) -> str:
    """Untrusted text (ids, names, paths, messages quoting them) for a rich console line: control characters
    shown as escapes (`sounding.escape.terminal`), rich markup taken as text."""
    return escape(terminal(text))


_done = {"exit": False}  # set by a command whose work is all on disk and on screen once it returns


def command_line() -> str:
    """The command being run, as a shell would take it back (`sounding search INDEX ...`): for provenance."""
    import shlex

    return shlex.join(["sounding", *_done.get("argv", [])])


def exit_when_done() -> None:
    """Say that this command leaves nothing for the interpreter's teardown to do (files closed, output
    printed): run as the program, the process then ends as soon as the command returns. Tearing down
    an interpreter that holds a large index, numba's kernels and their memory took ~0.25 s at NQ size
    (2.68 M documents), which the user would wait for with the run already written."""
    _done["exit"] = True


class _NoBlasProbe:
    """An import finder that answers numba's start-up BLAS probe with "no BLAS", and nothing else.

    numba's CPU target imports numba.np.arraymath when it first loads a kernel, and that module asks at
    import whether BLAS is there by importing scipy.linalg (0.19-0.21 s measured, of a ~1 s start-up). The
    answer only decides whether numba's compiled np.correlate and np.convolve take their inner products
    from BLAS; np.dot and the linear algebra check for BLAS again themselves when a function uses them, and
    Sounding's kernels use none of these. So the CLI answers the probe without the import; any other import
    of scipy.linalg goes on as usual. numba has no switch for this: the finder looks for the probe's frame
    (`_check_blas` in numba/np/arraymath.py)."""

    NAMES = ("scipy", "scipy.linalg", "scipy.linalg.cython_blas")

    def find_spec(self, name, path=None, target=None):
        if name in self.NAMES and name not in sys.modules:
            frame = sys._getframe(1)
            while frame is not None:
                code = frame.f_code
                if code.co_name == "_check_blas" and code.co_filename.endswith(os.path.join("numba", "np", "arraymath.py")):
                    raise ImportError(f"{name}: not imported for numba's BLAS probe (sounding's kernels use no BLAS)")
                frame = frame.f_back
        return None


def _skip_blas_probe() -> None:
    if not any(isinstance(f, _NoBlasProbe) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoBlasProbe())


def main(argv: list[str] | None = None) -> int:
    """Console entry point: user errors become one red line and exit code 2, never a traceback.

    Run as the program (`argv` None: the arguments are sys.argv's), a command that called
    `exit_when_done` ends the process here, after flushing stdout and stderr."""
    _done["exit"] = False
    _done["argv"] = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
    load_commands(_command_name(_done["argv"]))
    _skip_blas_probe()
    if argv is None:
        # A command makes many objects and few reference cycles (numba's start-up alone makes ~1 M objects):
        # at Python's default, a young collection every 700 allocations, 351 collections took 0.13-0.15 s of
        # a whole `sounding search` at NQ size (2.68 M documents, synthetic); one every 50,000: 4, 0.04 s.
        gc.set_threshold(50_000, 20, 20)
    code = _main(argv)
    if argv is None and _done["exit"] and code == 0:
        import logging

        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _main(argv: list[str] | None) -> int:
    _options["debug"] = False
    try:
        app(args=argv)  # standalone mode: typer prints usage errors itself and exits
    except SoundingError as e:
        message = str(e)
        if isinstance(e, UserCodeError):
            if _options["debug"]:
                import traceback

                traceback.print_exception(e.__cause__ or e, file=sys.stderr)
            else:
                message += " (`sounding --debug …` prints its traceback)"
        # shown: a message's own brackets (e.g. pip install -e '.[scale]') are text, not rich markup, and
        # its control characters (from a file name or an id it quotes) are shown as escapes
        Console(stderr=True).print(f"[red]error:[/red] {shown(message)}", highlight=False, soft_wrap=True)
        return 2
    except OSError as e:  # a fault no command turned into a SoundingError: still one line
        from ..io import os_error

        Console(stderr=True).print(f"[red]error:[/red] {shown(os_error(e))}", highlight=False, soft_wrap=True)
        return 2
    except MemoryError:
        Console(stderr=True).print("[red]error:[/red] out of memory; ask for fewer hits or queries at a time, or "
                                   "use a machine with more memory (inputs are checked before they are read "
                                   "whole, so this is the work's own size)", highlight=False)
        return 2
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except KeyboardInterrupt:
        Console(stderr=True).print("[red]interrupted[/red]")
        return 130
    return 0
