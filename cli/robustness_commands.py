"""Placeholder: the robustness commands register here (see docs/ARCHITECTURE.md)."""

import typer


def register(app: typer.Typer) -> None:
    """Add this topic's commands to the root app."""
