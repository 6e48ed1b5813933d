"""A guess against an answer, and the groups a guess splits the candidates into:
``POST /api/feedback`` and ``POST /api/partition`` (one board)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from web import service
from web.jobs import Jobs
from web.models import FeedbackBody, PartitionBody
from web.routes.common import ERROR_RESPONSES, ask, jobs_of

router = APIRouter()


@router.post("/api/feedback", summary="termo feedback GUESS ANSWER --json", responses=ERROR_RESPONSES)
async def api_feedback(body: FeedbackBody, jobs: Jobs = Depends(jobs_of)):
    return await ask(jobs, "feedback", service.feedback, body.model_dump())


@router.post("/api/partition", summary="termo partition GUESS HISTORY... --json", responses=ERROR_RESPONSES)
async def api_partition(body: PartitionBody, jobs: Jobs = Depends(jobs_of)):
    return await ask(jobs, "partition", service.partition, body.model_dump(), lane="long")
