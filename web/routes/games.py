"""The games and modes the server plays, and its health: ``GET /api/games`` (`termo games --json`),
``GET /api/modes`` (the modes of several boards) and ``GET /api/health``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from web import service
from web.jobs import Jobs
from web.routes.common import call, jobs_of

router = APIRouter()


@router.get("/api/games", summary="termo games --json")
async def api_games(jobs: Jobs = Depends(jobs_of)):
    return await call(jobs, ("games",), service.games_data)


@router.get("/api/modes", summary="the modes of several boards: boards and turns of each")
async def api_modes(jobs: Jobs = Depends(jobs_of)):
    return await call(jobs, ("modes",), service.modes)


@router.get("/api/health", summary="the server is up; its worker pool; whether every game is warm")
async def api_health(request: Request, jobs: Jobs = Depends(jobs_of)):
    """``ready``: every game's kernels and matrices are loaded (`termo serve` prepares them
    at start); ``warming``: the games still being prepared (answered meanwhile, the first
    questions more slowly); ``warm_seconds``: how long that took, once ready."""
    warmup = request.app.state.warmup
    state = warmup.state() if warmup is not None else {"ready": True, "warming": [], "warm_seconds": None}
    return {"ok": True, "jobs": jobs.stats(), "configurations": len(service.ADVISORS),
            "advisors": service.ADVISORS.advisors(), **state}
