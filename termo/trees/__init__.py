"""Stored strategy trees: a file format, builders, an evaluator and a viewer."""
