"""The candidates a history leaves, without a suggestion (what a board shows after its last try, or
a game over): ``POST /api/candidates`` for a game or a mode of several boards, and its several-board
alias ``POST /api/mode/boards`` (the body names a ``mode``)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from web import service
from web.jobs import Jobs
from web.models import CandidatesBody, ModeBoardsBody
from web.routes.common import ERROR_RESPONSES, ask, jobs_of

router = APIRouter()


@router.post("/api/candidates", summary="the candidates a history leaves (the board's last round; several boards too)",
             responses=ERROR_RESPONSES)
async def api_candidates(body: CandidatesBody, jobs: Jobs = Depends(jobs_of)):
    return await ask(jobs, "candidates", service.candidates, body.model_dump())


@router.post("/api/mode/boards", summary="POST /api/candidates for a mode of several boards, named by 'mode'",
             responses=ERROR_RESPONSES)
async def api_mode_boards(body: ModeBoardsBody, jobs: Jobs = Depends(jobs_of)):
    fields = body.model_dump()
    return await ask(jobs, "candidates", service.candidates, {"game": fields.pop("mode"), **fields})
