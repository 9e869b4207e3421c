"""The environment variables a package's `connect()` reads, from its recorded launch: listed in its README and SKILL.md."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["LaunchVariable", "launch_variables"]

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class LaunchVariable:
    """A variable `connect()` reads, whether it must be set, and where it goes (Markdown, no server text).

    A setting (`setting` is its recorded value) is passed as recorded unless the variable is set; a secret is
    recorded by name only and read from the environment."""

    name: str
    required: bool
    use: str
    #: The header the variable fills (shown as code: a header's name may come from a registry entry).
    header: str | None = None
    #: A setting's value as recorded (None: a secret, read from the environment).
    setting: str | None = None


def launch_variables(launch: Mapping[str, Any] | None) -> list[LaunchVariable]:
    """Every variable the recorded launch refers to, in the order it appears (each once)."""
    if launch is None:
        return []
    found: dict[str, LaunchVariable] = {}

    def add(name: str, required: bool, use: str, header: str | None = None, setting: str | None = None) -> None:
        if name not in found:
            found[name] = LaunchVariable(name, required, use, header, setting)

    if launch.get("transport") == "stdio":
        for index, arg in enumerate(launch.get("args") or (), start=1):
            for name in _REFERENCE.findall(str(arg)):
                add(name, True, f"argument {index} of the server's command")
        for name in launch.get("envNames") or ():
            add(str(name), False, "a secret passed to the server when set")
        settings = launch.get("env")
        for name, value in settings.items() if isinstance(settings, Mapping) else ():
            add(str(name), False, "a setting passed to the server (the variable, when set, wins)", setting=str(value))
        return list(found.values())
    for name in _REFERENCE.findall(str(launch.get("url") or "")):
        add(name, True, "the server's URL")
    for header in launch.get("headers") or ():
        template = header.get("template")
        for name in _REFERENCE.findall(str(template or "")):
            add(name, True, "the header", str(header.get("name")))
    auth = launch.get("auth") or {}
    for key, use in (("clientSecretEnv", "the OAuth client secret"), ("workloadTokenEnv", "the workload token")):
        if auth.get(key):
            add(str(auth[key]), True, use)
    return list(found.values())
