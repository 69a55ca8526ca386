"""The stepper asks Textual for frames at 240 a second (a step no longer waits up to 16 ms for the next
frame tick after its work), unless the user set ``TEXTUAL_FPS`` themselves."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = "import tui.app.launch, textual.constants, textual.screen; print(textual.constants.MAX_FPS, textual.screen.UPDATE_PERIOD)"


def _probe(env: dict[str, str]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_app_draws_at_240_frames_a_second_and_keeps_a_users_own_setting():
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    fps, period = _probe(env)
    assert fps == "240" and abs(float(period) - 1 / 240) < 1e-9
    assert _probe({**env, "TEXTUAL_FPS": "30"})[0] == "30"
