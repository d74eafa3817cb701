"""Sounding: a retrieval engine and zero-shot evaluation harness.

The public API is re-exported here; every CLI command is one of these calls.
"""
__version__ = "0.1.0"

from .errors import DataError, SoundingError  # noqa: E402,F401
