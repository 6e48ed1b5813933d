"""The review of a game: ``POST /api/review``, `termo review --json` over HTTP (docs/review.md).

The body (`web.models.ReviewBody`) gives a game or a mode and the game played, in one of the CLI's
shapes: ``history`` (``guess:colours``; a mode ``guess:p1/p2/…``), or ``guesses`` with ``answer``
or with ``share_text``. The answer is the command's JSON; with ``share: true`` only ``{"game",
"share"}`` (the game's own share text). A game the rules refuse (a grid no answer can produce,
colours a guess cannot get) is 422 with the CLI's line. A review runs in the ``long`` lane, a
share text alone in the ``short`` one; identical requests share one computation.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends

from web import service
from web.jobs import Jobs
from web.models import ReviewBody
from web.routes.common import ERROR_RESPONSES, ask, jobs_of

router = APIRouter()


@router.post("/api/review", summary="termo review ... --json: every guess against the best, luck, scores",
             responses=ERROR_RESPONSES)
async def api_review(body: ReviewBody, jobs: Jobs = Depends(jobs_of)):
    fields = body.model_dump()
    fields["game"] = body.game if "game" in body.model_fields_set else None
    return await ask(jobs, "review", service.review, fields, lane="short" if body.share else "long")
