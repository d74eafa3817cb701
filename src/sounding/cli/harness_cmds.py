"""CLI commands: harness_cmds."""
from .app import app  # noqa: F401
