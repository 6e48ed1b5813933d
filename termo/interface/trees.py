"""The front ends' door to the stored strategy trees (`termo.trees`: ``termo tree build|eval|show``)."""

from __future__ import annotations

from termo.trees.build import build_tree, check_method
from termo.trees.evaluate import evaluate
from termo.trees.fileformat import read_tree, write_tree
from termo.trees.show import answer_path, format_levels, format_path, top_levels
from termo.trees.store import cache_path

__all__ = ["answer_path", "build_tree", "cache_path", "check_method", "evaluate", "format_levels", "format_path",
           "read_tree", "top_levels", "write_tree"]
