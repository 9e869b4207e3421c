"""How many secrets the launch redaction hides, and how many public values it leaves alone (issues 50 and 56).

    python benchmarks/redaction_catch_rate.py [--count 500] [--seed 50]

First the real-launch corpus (`tests/security/data/real_launches.json`: launch lines of real MCP servers as
their READMEs set them up, each value with its expected verdict): the catch rate (secrets absent from the
record, each replaced by a placeholder in its place) and the false-positive rate (public arguments changed,
settings given with `-e` not recorded as written), with every value judged wrong listed.

Then random tokens, drawn with a seeded generator (`random.Random(seed)`), so every run prints the same figures.
Each token of each length and alphabet is placed three ways: alone, after a secret-named flag (`--bearer`,
`--pw`, `-p`, `--access-token`, in turn) and after a neutral flag (`--option`). A token counts as caught when it
is absent from the recorded arguments. The public values (`tests/security/public_values.py`) must all stay.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from security.public_values import PUBLIC_ARGUMENTS  # noqa: E402
from security.real_launches import judge_all, real_launches  # noqa: E402

from mcp_codegen.inputs.redaction import placeholder_args, upper_snake  # noqa: E402

ALPHABETS = {
    "mixed-case alnum": string.ascii_letters + string.digits,
    "lowercase alnum": string.ascii_lowercase + string.digits,
    "base64 (+/)": string.ascii_letters + string.digits + "+/",
}
SECRET_FLAGS = ("--bearer", "--pw", "-p", "--access-token")
PLACEMENTS = ("alone", "after a secret-named flag", "after a neutral flag")


def recorded(args: list[str]) -> list[str]:
    return placeholder_args(args, lambda hint, _index: "${" + upper_snake(hint) + "}")


def placed(token: str, placement: str, number: int) -> list[str]:
    if placement == "alone":
        return [token]
    if placement == "after a neutral flag":
        return ["--option", token]
    return [SECRET_FLAGS[number % len(SECRET_FLAGS)], token]


def catch_rate(alphabet: str, length: int, placement: str, count: int, seed: int) -> float:
    generator = random.Random(f"{seed}-{alphabet}-{length}")
    caught = 0
    for number in range(count):
        token = "".join(generator.choice(alphabet) for _ in range(length))
        caught += not any(token in arg for arg in recorded(placed(token, placement, number)))
    return caught / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=50)
    options = parser.parse_args()
    judged = judge_all()
    secrets = [value for value in judged if value.secret]
    public = [value for value in judged if not value.secret]
    caught = sum(value.right for value in secrets)
    changed = sum(not value.right for value in public)
    print(f"real-launch corpus: {len(real_launches())} launches, {len(judged)} values")
    print(f"  catch rate: {caught} of {len(secrets)} secrets hidden ({caught / len(secrets):.1%})")
    print(f"  false positives: {changed} of {len(public)} public values changed ({changed / len(public):.1%})")
    for value in judged:
        if not value.right:
            kind = "secret kept" if value.secret else "public value changed"
            print(f"    {kind}: {value.where} of {value.source[:70]}")
    print()
    print(f"| alphabet | placement | {' | '.join(f'{n} chars' for n in (16, 20, 24, 28, 32, 40))} |")
    print("|---|---|" + "---|" * 6)
    for name, alphabet in ALPHABETS.items():
        for placement in PLACEMENTS:
            rates = [catch_rate(alphabet, n, placement, options.count, options.seed) for n in (16, 20, 24, 28, 32, 40)]
            print(f"| {name} | {placement} | {' | '.join(f'{rate:.0%}' for rate in rates)} |")
    changed = [args for args in PUBLIC_ARGUMENTS if recorded(list(args)) != list(args)]
    print(f"\npublic values changed: {len(changed)} of {len(PUBLIC_ARGUMENTS)}")
    for args in changed:
        print("  ", args, "->", recorded(list(args)))


if __name__ == "__main__":
    main()
