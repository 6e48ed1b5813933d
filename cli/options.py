"""What several commands share: the root options carried in typer's context, and option groups.

The root ``--backend`` (``termo --backend NAME COMMAND``) travels in the root context's ``obj``
(`RootOptions`; typer hands it to every subcommand's context), and each command passes the
backend it resolves (`command_backend`) to the library explicitly.

An option group (`OptionGroup`, `with_options`) is a run of typer parameters that several
commands declare alike: written once, it takes the place of one parameter of each command (the
same options, in the same place of its help), and the command gets their values as one object.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Optional


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


@dataclass(frozen=True)
class OptionGroup:
    """Typer parameters declared once for several commands (`with_options`): ``parameters``
    in their help order; ``make(ctx, **values)`` is what a command gets for them (``ctx``: the
    command's typer context, None on the direct path)."""

    parameters: tuple[inspect.Parameter, ...]
    make: Callable[..., Any]

    @classmethod
    def of(cls, make: Callable[..., Any], **declared: tuple[Any, Any]) -> "OptionGroup":
        """``declared``: parameter name -> ``(annotation, default)`` (an ``Annotated`` typer option)."""
        return cls(tuple(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                           annotation=annotation)
                         for name, (annotation, default) in declared.items()), make)


def with_options(name: str, group: OptionGroup):
    """A command whose parameter ``name`` stands for the parameters of ``group``, in its place:
    typer (and `cli.app.direct_call`) sees those, the command gets ``group.make(ctx, **values)``
    (a value not passed, as on the direct path: its default)."""

    def decorate(func):
        signature = inspect.signature(func, eval_str=True)
        contexts = [p.name for p in signature.parameters.values() if is_context(p.annotation)]
        parameters = []
        for parameter in signature.parameters.values():
            parameters.extend(group.parameters if parameter.name == name else (parameter,))

        @functools.wraps(func)
        def command(*args, **kwargs):
            values = {p.name: kwargs.pop(p.name, p.default) for p in group.parameters}
            ctx = kwargs.get(contexts[0]) if contexts else None
            return func(*args, **kwargs, **{name: group.make(ctx, **values)})

        command.__signature__ = signature.replace(parameters=parameters)
        return command

    return decorate


def is_context(annotation) -> bool:
    """Whether a parameter's annotation is typer's context (filled by typer, not an option)."""
    import typer

    return isinstance(annotation, type) and issubclass(annotation, typer.Context)
