"""CLI commands: eval_cmds."""
from .app import app  # noqa: F401
