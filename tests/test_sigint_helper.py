"""A child that a test interrupts sees Ctrl-C even when the suite runs with SIGINT ignored: `helpers.sigint_by_default`.

A shell without job control starts a background job with SIGINT ignored, and every child inherits that, so a test
that sends a child SIGINT would wait for an end that never comes. Each way a child can start is enumerated: its
parent ignoring SIGINT or not, the helper given as `preexec_fn` or not. What the child's Python installed for
SIGINT is read from the child itself, so nothing here waits on time.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from helpers import sigint_by_default

SHOW_HANDLER = (
    "import signal; handler = signal.getsignal(signal.SIGINT); "
    "print('ignored' if handler is signal.SIG_IGN else 'KeyboardInterrupt' "
    "if handler is signal.default_int_handler else repr(handler))"
)


@pytest.mark.parametrize("parent_ignores", [False, True], ids=["parent-default", "parent-ignores"])
@pytest.mark.parametrize("helper", [False, True], ids=["plain", "sigint_by_default"])
def test_a_child_started_with_the_helper_takes_ctrl_c(parent_ignores: bool, helper: bool) -> None:
    def preexec() -> None:
        if parent_ignores:  # what the child inherits from a suite run as a background job
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        if helper:
            sigint_by_default()

    shown = subprocess.run(
        [sys.executable, "-c", SHOW_HANDLER], preexec_fn=preexec, capture_output=True, text=True, check=True
    ).stdout.strip()
    # Python raises KeyboardInterrupt on SIGINT unless it started with SIGINT ignored: then it leaves it ignored.
    expected = "ignored" if parent_ignores and not helper else "KeyboardInterrupt"
    assert shown == expected
