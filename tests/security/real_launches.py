"""The real-launch corpus (`data/real_launches.json`): each launch recorded as `generate` records it, each value judged.

Shared by `test_real_launches.py` (every value as expected) and `benchmarks/redaction_catch_rate.py` (the rates).
A value is an argument without a secret in it, each secret inside an argument, or a variable given to the
server. A secret is caught when it is absent from the record; a public value is kept when it is recorded as
written (an argument unchanged, a setting recorded with its value).
"""

from __future__ import annotations

import json
import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

from mcp_codegen.inputs.launch import StdioLaunch

DATA = Path(__file__).parent / "data" / "real_launches.json"
_FAKE = re.compile(r"<<(hex|lower|alnum|upper|b64|digits):(\d+)(?:#\w+)?>>")
_ALPHABETS = {
    "hex": "0123456789abcdef",
    "lower": string.ascii_lowercase + string.digits,
    "alnum": string.ascii_letters + string.digits,
    "upper": string.ascii_uppercase + string.digits,
    "b64": string.ascii_letters + string.digits + "+/",
    "digits": string.digits,
}
_PLACEHOLDER = r"\$\{[A-Za-z_][A-Za-z0-9_]*\}"


@dataclass(frozen=True)
class RealLaunch:
    source: str
    command: str
    args: tuple[str, ...]
    env: dict[str, str]
    #: The values to hide (each a whole variable's value or a part of an argument).
    secrets: tuple[str, ...]


@dataclass(frozen=True)
class Judged:
    """One value of a launch: what it is, whether it is secret, and whether the record treats it so."""

    source: str
    where: str
    value: str
    secret: bool
    right: bool


def real_launches() -> list[RealLaunch]:
    data = json.loads(DATA.read_text("utf-8"))
    launches = []
    for entry in data["launches"]:
        filled: dict[str, str] = {}

        def fill(text: str, source: str = entry["source"], filled: dict[str, str] = filled) -> str:
            def one(match: re.Match[str]) -> str:
                token = match.group(0)
                if token not in filled:  # the same token is the same value throughout a launch
                    generator = random.Random(f"{source}|{token}")
                    alphabet = _ALPHABETS[match.group(1)]
                    filled[token] = "".join(generator.choice(alphabet) for _ in range(int(match.group(2))))
                return filled[token]

            return _FAKE.sub(one, text)

        launches.append(
            RealLaunch(
                source=entry["source"],
                command=entry["command"],
                args=tuple(fill(arg) for arg in entry["args"]),
                env={name: fill(value) for name, value in entry.get("env", {}).items()},
                secrets=tuple(fill(secret) for secret in entry["secret"]),
            )
        )
    return launches


def judge(launch: RealLaunch) -> list[Judged]:
    """Every value of `launch`, recorded as `generate --stdio ... -e ...` records it."""
    record = StdioLaunch(command=launch.command, args=launch.args, env=launch.env).record()
    judged: list[Judged] = []
    for index, (arg, recorded) in enumerate(zip(launch.args, record.args, strict=True)):
        inside = [secret for secret in launch.secrets if secret in arg]
        where = f"argument {index + 1}"
        if not inside:
            judged.append(Judged(launch.source, where, arg, False, recorded == arg))
            continue
        pattern = re.escape(arg)
        for secret in sorted(inside, key=len, reverse=True):
            pattern = pattern.replace(re.escape(secret), _PLACEHOLDER)
        shaped_right = re.fullmatch(pattern, recorded) is not None
        for secret in inside:
            judged.append(Judged(launch.source, where, secret, True, secret not in recorded and shaped_right))
    kept = dict(record.env)
    for name, value in launch.env.items():
        where = f"variable {name}"
        if value in launch.secrets:
            right = name in record.env_names and name not in kept
            judged.append(Judged(launch.source, where, value, True, right))
        else:
            judged.append(Judged(launch.source, where, value, False, kept.get(name) == value))
    return judged


def judge_all() -> list[Judged]:
    return [judged for launch in real_launches() for judged in judge(launch)]
