"""What several commands share: the root options carried in typer's context, and option handling.

The root ``--backend`` (``termo --backend NAME COMMAND``) travels in the root context's ``obj``
(`RootOptions`; typer hands it to every subcommand's context), and each command passes the
backend it resolves (`command_backend`) to the library explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class RootOptions:
    """The root options of one ``termo`` run (``ctx.obj``)."""

    backend: Optional[str] = None


def root_backend(ctx) -> Optional[str]:
    """The root ``--backend`` of the run ``ctx`` belongs to (None: not given, or no context)."""
    obj = getattr(ctx, "obj", None)
    return obj.backend if isinstance(obj, RootOptions) else None


def command_backend(ctx, backend: Optional[str]) -> Optional[str]:
    """The backend a command runs on: its own ``--backend`` typed on its command line, else the
    root ``--backend``, else its option's value from ``$TERMO_BACKEND`` (None: NumPy).

    ``ctx`` is None on the direct path (`cli.app.direct_call`), which has chosen ``backend`` in
    the same order already."""
    if ctx is None:
        return backend
    source = ctx.get_parameter_source("backend")
    if source is not None and source.name == "COMMANDLINE":
        return backend
    return root_backend(ctx) or backend
