"""What the app can do: the tasks the workers run, the quick lookups the server answers
itself, and the screens (each a form and its script)."""

from __future__ import annotations

from bazarsim.app.hand import HAND_TASKS, hand_screen
from bazarsim.app.replay import INFO as REPLAY_INFO
from bazarsim.app.replay import REPLAY_TASKS, replay_screen
from bazarsim.app.study import INFO as STUDY_INFO
from bazarsim.app.study import STUDY_TASKS, study_screen

TASKS = {**HAND_TASKS, **STUDY_TASKS, **REPLAY_TASKS}
INFO = {**STUDY_INFO, **REPLAY_INFO}
SCREENS = {"hand": hand_screen, "study": study_screen, "replay": replay_screen}
