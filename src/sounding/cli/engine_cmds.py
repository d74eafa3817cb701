"""CLI commands: engine_cmds."""
from .app import app  # noqa: F401
