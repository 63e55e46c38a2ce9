"""What the app can do: the tasks the workers run, the quick lookups the server answers
itself, and the screens (each a form and its script)."""

from __future__ import annotations

from bazarsim.app.hand import HAND_TASKS, hand_screen

TASKS = {**HAND_TASKS}
INFO: dict = {}
SCREENS = {"hand": hand_screen}
