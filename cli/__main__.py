"""``python -m cli`` runs the ``termo`` command."""

from cli.app import run

run()
