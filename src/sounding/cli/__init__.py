"""`sounding` command line: a thin shell over the Python API (each command is one API call).

Each area registers its commands on `app` in its own module (HELP_GROUPS in app.py names it); `main` (in
app.py) is the console entry point and imports only the module of the command it runs. `sounding.cli.app`
read from this package is the application with every command registered.
"""
import sys

from .app import main

del app  # the submodule's name, bound by the import above: `app` here is the application (__getattr__)

__all__ = ["app", "main"]


def __getattr__(name: str):
    if name == "app":
        module = sys.modules[f"{__name__}.app"]
        module.load_commands()
        return module.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(main())
