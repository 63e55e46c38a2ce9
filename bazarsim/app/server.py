"""The app's web server: Starlette routes over the worker pool.

The server never does the work of a question: it checks the form (``Task.check``, quick),
hands the job to the pool and answers the page's requests for news of it. Its own threads never
call a parallel kernel. Every error is an answer (a message, a 4xx), never a traceback page,
and never stops the server. Only the hosts it was started for are served (a page of another
site cannot reach it through a DNS name that points at this machine), and questions are
JSON posts (a form of another site cannot send one without the browser asking first).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from bazarsim.app.pages import error_page, shell
from bazarsim.app.pool import Busy, Pool, memory_kib
from bazarsim.core.errors import BazarsimError

log = logging.getLogger("bazarsim.app")

MAX_BODY = 256 * 1024  # a form is small: bigger posts are refused
LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"]
WARM = {"tiny": True}  # the warm-up job's parameters (the warm task ignores them)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def make_app(data_root: str | Path | None = None, jobs: int = 1,
             tasks_module: str = "bazarsim.app.registry", hosts: list[str] | None = None,
             warm: bool = True) -> Starlette:
    """The app: ``data_root`` is the only directory its forms may read from; ``jobs``
    workers answer questions; ``hosts``: the host names it answers to (default the local
    ones); ``warm``: each new worker loads the kernels before its first question."""
    import importlib

    registry = importlib.import_module(tasks_module)
    root = Path(data_root).resolve() if data_root is not None else None
    if root is not None and not root.is_dir():
        raise BazarsimError(f"--data {data_root}: not a directory", str(data_root))

    @contextlib.asynccontextmanager
    async def lifespan(app):
        app.state.pool = Pool(tasks_module, "TASKS", jobs, WARM if warm else None)
        try:
            yield
        finally:
            app.state.pool.close()

    async def screen(request: Request) -> Response:
        name = request.path_params["screen"]
        if name not in registry.SCREENS:
            return HTMLResponse(error_page(404, f"no screen {name!r} here"), 404)
        body, script = registry.SCREENS[name]()
        return HTMLResponse(shell(name, body, script))

    async def home(request: Request) -> Response:
        return RedirectResponse("/hand", 303)

    async def submit(request: Request) -> Response:
        if "application/json" not in request.headers.get("content-type", ""):
            return _error(415, "send the question as JSON (Content-Type: application/json)")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            return _error(413, "the question is too long")
        try:
            msg = json.loads(raw)
        except ValueError:
            return _error(400, "the question is not valid JSON")
        if not isinstance(msg, dict) or not isinstance(msg.get("fields", {}), dict):
            return _error(400, "send {\"task\": NAME, \"fields\": {...}}")
        name = msg.get("task")
        task = registry.TASKS.get(name) if isinstance(name, str) else None
        if task is None or name == "warm":
            return _error(404, f"no task {name!r} here")
        try:
            params = await run_in_threadpool(task.check, msg.get("fields", {}), root)
            job = request.app.state.pool.submit(name, params)
        except Busy as exc:
            return _error(503, str(exc))
        except BazarsimError as exc:
            return _error(400, str(exc))
        return JSONResponse(request.app.state.pool.status(job.id), status_code=202)

    async def job_status(request: Request) -> Response:
        since = request.query_params.get("since")
        if since is not None and not since.isdigit():
            return _error(400, "since: give the version number of the last answer")
        st = await run_in_threadpool(request.app.state.pool.status, request.path_params["job"],
                                     None if since is None else int(since))
        if st is None:
            return _error(404, "no such question (finished ones are kept for a while only)")
        return JSONResponse(st)

    async def job_cancel(request: Request) -> Response:
        st = await run_in_threadpool(request.app.state.pool.cancel, request.path_params["job"])
        if st is None:
            return _error(404, "no such question")
        return JSONResponse(st)

    async def status(request: Request) -> Response:
        pool = request.app.state.pool
        return JSONResponse({"workers": pool.workers(), "waiting": pool.waiting(),
                             "server": {"pid": os.getpid(), "rss_kib": memory_kib(os.getpid())},
                             "data": str(root) if root else None})

    async def info(request: Request) -> Response:
        name = request.path_params["name"]
        fn = registry.INFO.get(name)
        if fn is None:
            return _error(404, f"nothing called {name!r} to look up")
        try:
            out: Any = await run_in_threadpool(fn, root, dict(request.query_params))
        except BazarsimError as exc:
            return _error(400, str(exc))
        return JSONResponse(out)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return _error(exc.status_code, str(exc.detail))
        return HTMLResponse(error_page(exc.status_code, str(exc.detail)), exc.status_code)

    async def crash(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s", request.url.path)
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")

    routes = [
        Route("/", home),
        Route("/api/jobs", submit, methods=["POST"]),
        Route("/api/jobs/{job}", job_status, methods=["GET"]),
        Route("/api/jobs/{job}", job_cancel, methods=["DELETE"]),
        Route("/api/status", status),
        Route("/api/info/{name}", info),
        Route("/{screen}", screen),
    ]
    allowed = hosts if hosts is not None else LOCAL_HOSTS
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed)]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                     exception_handlers={HTTPException: http_error, Exception: crash})
