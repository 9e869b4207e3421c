"""`${VAR}` references: the one expander of environment variables (the generator's command line and config use it too)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

__all__ = ["ENV_REFERENCE", "expand_env_references"]

ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env_references(
    text: str, environ: Mapping[str, str], missing: Callable[[str], Exception]
) -> str:
    """Replace every `${VAR}` in `text` from `environ`; raise `missing(VAR)` for an unset one.

    The only `${VAR}` expander: the generator's command line and config files use it too.
    """

    def substitute(match: re.Match[str]) -> str:
        variable = match.group(1)
        if variable not in environ:
            raise missing(variable)
        return environ[variable]

    return ENV_REFERENCE.sub(substitute, text)
