"""`termo review`: a thin typer wrapper over `termo.interface.review` (docs/review.md).

`register(app)` adds the command. The game comes as history items (``guess:colours``), as bare
guesses with ``--answer``, or as bare guesses with a share text (``--share-text FILE``, ``-`` for
standard input); ``--share`` prints the game's own share text instead of the review. Bad input
is one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from cli.common import USER_ERRORS, fail, print_json
from cli.options import (BackendOption, GameOption, HardOption, JsonOption, LossOption, ObjectiveOption, TOption,
                         nodes_option, value_option)



def _read_text(source: str) -> str:
    """The share text in the file ``source`` (``-``: standard input)."""
    from termo.core.errors import TermoError
    from termo.core.safe_text import capped_text
    from termo.interface.review import SHARE_TEXT_LIMIT

    most = 4 * SHARE_TEXT_LIMIT + 3  # the longest text the review takes, in UTF-8 with a byte-order mark
    try:
        if source == "-":
            data = sys.stdin.buffer.read(most + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(most + 1)
    except OSError as err:
        raise TermoError(f"--share-text {source}: {err.strerror or err}") from None
    try:
        return capped_text(data, most, "utf-8-sig")
    except ValueError as err:
        raise TermoError(f"--share-text {source}: {err}") from None


def review_command(
    ctx: typer.Context,
    items: Annotated[
        Optional[list[str]],
        typer.Argument(metavar="HISTORY|GUESS",
                       help="The rounds played, as guess:colours (a mode: guess:p1/p2/..., '-' for a solved board); "
                            "or the bare guesses, with --answer or --share-text.", show_default=False),
    ] = None,
    game_name: GameOption = None,
    hard: HardOption = False,
    answer: value_option("--answer", "WORD", "The answer (a mode: the answers in board order, comma-separated): the colours of the "
                         "bare guesses are computed.") = None,
    share_text: value_option("--share-text", "FILE|-", "A share text (the game's emoji grid, '-' reads standard input): the colours of the bare "
                             "guesses; its header names the game and hard mode (*).") = None,
    share: Annotated[bool, typer.Option("--share", help="Print the game's own share text instead of the review.")] = False,
    number: value_option("--number", "N", "The puzzle number the share text shows.") = None,
    t: TOption = "1.0",
    loss: LossOption = "7",
    objective: ObjectiveOption = "finish",
    nodes: nodes_option("The exact search's budget per turn, in states expanded (default: 2,000 on the first turn, "
                        "50,000 after; a mode: 300,000 joint outcomes). Past it a turn is valued by level 3.") = None,
    json_out: JsonOption = False,
    backend: BackendOption = None,
) -> None:
    """Review a game: every guess against the best (its cost in expected guesses), the luck of
    the colours, skill and luck scores 0-99 (docs/review.md).

    Values are exact where proved (stored optimum, the exact solver within its budget), level 3's
    estimate otherwise; each turn says which."""
    from termo.interface.review import format_review, review_request

    try:
        text = None if share_text is None else _read_text(share_text)
        data = review_request(game_name, items or [], answer=answer, share_text=text, hard=hard, t=t, loss=loss,
                              objective=objective, nodes=nodes, backend=backend, share=share, number=number)
    except USER_ERRORS as err:
        fail(str(err))
    if json_out:
        print_json(data)
    elif share:
        typer.echo(data["share"])
    else:
        for line in format_review(data):
            typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add `review` to the root app."""
    app.command("review")(review_command)
