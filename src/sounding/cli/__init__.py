"""`sounding` command line: a thin shell over the Python API (each command is one API call).

Each area registers its commands on `app` in its own module, imported below; `main` (in app.py) is
the console entry point.
"""
import sys

from .app import app, main
# (registers the commands, in the order `sounding --help` lists them)
from . import (data_cmds, dense_cmds, fusion_cmds, sparse_cmd, rerank_cmd, index_cmd, search_cmd,  # noqa: F401
               eval_cmds, run_cmd, regress_cmd, profile_cmd, shard_index_cmd)

__all__ = ["app", "main"]

if __name__ == "__main__":
    sys.exit(main())
