"""Tasks for the pool's own tests (tests/test_app_pool.py): quick, and each showing one
way a question can end."""

from __future__ import annotations

import os
import time

from bazarsim.app.task import Task
from bazarsim.core.errors import BazarsimError


def _echo(params, progress):
    progress(0.5, "half way", {"ahead": params["x"]})
    time.sleep(params.get("sleep", 0))
    return {"x": params["x"], "pid": os.getpid()}


def _refuse(params, progress):
    raise BazarsimError("no such hand")


def _boom(params, progress):
    raise ZeroDivisionError("a bug")


def _die(params, progress):
    os._exit(3)


def _ignore(fields, root):
    return dict(fields)


TASKS = {name: Task(name, _ignore, fn) for name, fn in (
    ("echo", _echo), ("refuse", _refuse), ("boom", _boom), ("die", _die))}
