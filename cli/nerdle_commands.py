"""Placeholder: the `termo nerdle` commands are registered here (being built)."""


def register(app) -> None:
    """Add this module's commands to the root typer app (none yet)."""
