"""Python's cyclic garbage collector held off while a package is generated: a run is short and makes few cycles.

A generation run builds millions of small objects it keeps to the end (cached entries read back, schemas, IR,
rendered text), and the collector scans the growing heap again and again as they pile up: measured on the
344-tool ms-365 listing, ~17% of a regeneration's CPU and ~10% of a cold run's, for nothing to free (the run's
memory peaks the same with it paused). Reference counting still frees everything that is not a cycle; the
collector is switched back on when the block ends, so a long-lived caller (tests, an umbrella run) is unaffected.
The model generator's workers turn it back on for themselves (`workers._serve`): they run a third-party
generator for as long as the listing is large.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Whether a block's end switches the collector back on: not in the console script's process, which ends with
#: the command (`_console._exit_now`); switched on there, it would scan the whole heap once more for nothing
#: (~40 ms after a 344-tool run).
_resume = True


def paused_until_exit() -> None:
    """This process ends when its command does (the console script): a block's end leaves the collector paused."""
    global _resume
    _resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Within the block the cyclic collector does not run (nested blocks, and a caller's own pause, are kept)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled and _resume:
            gc.enable()
