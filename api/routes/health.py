from __future__ import annotations

from fastapi import APIRouter, Request

from ..schemas import HealthResponse, InferenceStatus

router = APIRouter(tags=["service"])


@router.get("/health", response_model=HealthResponse, summary="Is the service up")
def health(request: Request) -> HealthResponse:
    state = request.app.state
    return HealthResponse(
        status="ok",
        version=state.version,
        model_loaded=state.inference.model_loaded(),
        model=state.inference.model_name(),
        inference=InferenceStatus(workers=state.pool.workers, queue=state.pool.queue,
                                  admitted=state.pool.admitted),
    )
