"""Inverted index: streaming writer, on-disk format, memory-mapped reader."""
from .format import FORMAT_VERSION, Manifest
from .reader import Index
from .writer import BuildReport, build_index

__all__ = ["FORMAT_VERSION", "Manifest", "Index", "BuildReport", "build_index"]
