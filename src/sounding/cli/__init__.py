"""`sounding` command line: a thin shell over the Python API (each command is one API call).

Each area registers its commands on `app` in its own module, imported below; `main` (in app.py) is
the console entry point.
"""
import sys

from .app import app, main
from . import data_cmds, dense_cmds, engine_cmds, eval_cmds, experiment_cmds, regress_cmds, scale_cmds  # noqa: F401  (register commands)

__all__ = ["app", "main"]

if __name__ == "__main__":
    sys.exit(main())
