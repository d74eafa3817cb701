"""The typer application every command module registers on."""
import typer

app = typer.Typer(
    name="sounding",
    help="Retrieval engine and zero-shot evaluation harness (BEIR, Mr. TyDi).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command("version")
def version() -> None:
    """Print the Sounding version."""
    from .. import __version__

    print(__version__)


@app.callback()
def _root() -> None:
    """Sounding: retrieval engine and zero-shot evaluation harness (BEIR, Mr. TyDi)."""
