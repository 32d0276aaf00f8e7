from __future__ import annotations

from fastapi import APIRouter, Request

from ..schemas import HealthResponse, InferenceStatus

router = APIRouter(tags=["service"])


@router.get("/health", response_model=HealthResponse, summary="Is the service up")
async def health(request: Request) -> HealthResponse:
    """On the event loop, as the pool is: idle workers that ended or were stopped are replaced here."""
    state = request.app.state
    pool = state.pool
    pool.renew_idle()
    workers = pool.status()
    loaded, name = state.inference.model_status(pool)
    return HealthResponse(
        status="degraded" if workers["degraded"] else "ok",
        version=state.version,
        model_loaded=loaded,
        model=name,
        inference=InferenceStatus(workers=pool.workers, queue=pool.queue, admitted=pool.admitted,
                                  ready=workers["ready"], starting=workers["starting"], stuck=workers["stuck"],
                                  replaced=workers["replaced"]),
    )
