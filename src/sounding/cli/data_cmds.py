"""CLI commands: data_cmds."""
from .app import app  # noqa: F401
