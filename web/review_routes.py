"""``POST /api/review``: `termo review --json` over HTTP (`router`, included by `web.app.create_app`).

The body (`ReviewBody`) gives a game or a mode and the game played, in one of the CLI's shapes
(docs/review.md): ``history`` (``guess:colours``; a mode ``guess:p1/p2/…``), or ``guesses`` with
``answer`` (a mode: the answers comma-separated) or with ``share_text`` (the game's emoji grid).
The answer is `termo.interface.review.review_request`'s JSON, exactly the command's; with
``share: true`` only ``{"game", "share"}`` (the game's own share text, no review: quick). A game
the rules refuse (a grid no answer can produce, colours a guess cannot get) is 422 with one line
(`web.errors.refusal`). Reviews run in the ``long`` lane of the worker pool (`web.api_routes.ask`),
a share text alone in the ``short`` one; identical requests share one computation.
"""

from __future__ import annotations

from typing import List, Optional, Union

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from web.api_routes import ERROR_RESPONSES, ask, jobs_of
from web.jobs import Jobs

router = APIRouter()

SHARE_TEXT_CHARS = 8_000  # an Octordle's share text is about 2,600 characters


class ReviewBody(BaseModel):
    """``termo review ... --json``: the game and the rounds played (one of three shapes)."""

    model_config = ConfigDict(extra="forbid")

    game: StrictStr = Field("termo", description="a game or a mode of several boards (dueto, quordle, ...); with a "
                                                 "share_text whose header names its game, that game")
    history: List[StrictStr] = Field(default_factory=list, description="rounds played, guess:colours (a mode: "
                                                                       "guess:p1/p2/..., '-' for a solved board)")
    guesses: List[StrictStr] = Field(default_factory=list, description="the bare guesses, with answer or share_text")
    answer: Optional[StrictStr] = Field(None, description="the answer (a mode: the answers, comma-separated)")
    share_text: Optional[StrictStr] = Field(None, description="the game's share text: the colours of the guesses")
    hard: StrictBool = Field(False, description="hard mode (also read from a share text's '*')")
    t: Union[StrictInt, StrictFloat, StrictStr] = Field(1.0, description="prior temperature; 'inf' = uniform")
    loss: Optional[Union[StrictInt, StrictFloat, StrictStr]] = Field(
        None, description="one board: an answer not found costs this many guesses beyond the tries (default 7; 'inf')")
    objective: StrictStr = Field("finish", description="a mode: finish, score or win")
    nodes: Optional[Union[StrictInt, StrictStr]] = Field(None, description="the exact search's budget per turn")
    share: StrictBool = Field(False, description="only the game's share text (no review)")
    number: Optional[Union[StrictInt, StrictStr]] = Field(None, description="the puzzle number the share text shows")


def review(game=None, history=(), guesses=(), answer=None, share_text=None, hard: bool = False, t=1.0, loss=None,
           objective: str = "finish", nodes=None, share: bool = False, number=None):
    """The review of a request's fields: ``(data, warnings)`` as `web.api_routes.call` expects.
    ``game`` None (not given): the game a share text's header names, else termo."""
    from termo.core.errors import TermoError
    from termo.interface.review import review_request
    from web.limits import check_history, check_text

    if game is None and share_text is None:
        game = "termo"
    if game is not None:
        check_text("game", game)
    if answer is not None:
        check_text("answer", answer)
    history, guesses = check_history(history), check_history(guesses)
    if history and guesses:
        raise TermoError("give either history (guess:colours) or guesses (with answer or share_text), not both")
    if share_text is not None and len(share_text) > SHARE_TEXT_CHARS:
        raise TermoError(f"share_text is too long: {len(share_text):,} characters, at most {SHARE_TEXT_CHARS:,}")
    data = review_request(game, history or guesses, answer=answer, share_text=share_text, hard=hard, t=t, loss=loss,
                          objective=objective, nodes=nodes, share=share, number=number)
    return data, []


@router.post("/api/review", summary="termo review ... --json: every guess against the best, luck, scores",
             responses=ERROR_RESPONSES)
async def api_review(body: ReviewBody, jobs: Jobs = Depends(jobs_of)):
    """A finished or unfinished game: ``history``, or ``guesses`` with ``answer`` or ``share_text``."""
    fields = body.model_dump()
    fields["game"] = body.game if "game" in body.model_fields_set else None
    return await ask(jobs, "review", review, fields, lane="short" if body.share else "long")
