"""How many random tokens the command-line redaction hides, and how many public values it leaves alone (issue 50).

    python benchmarks/redaction_catch_rate.py [--count 500] [--seed 50]

Tokens are drawn with a seeded generator (`random.Random(seed)`), so every run prints the same figures. Each
token of each length and alphabet is placed three ways: alone, after a secret-named flag (`--bearer`, `--pw`,
`-p`, `--access-token`, in turn) and after a neutral flag (`--option`). A token counts as caught when it is
absent from the recorded arguments. The public values (`tests/security/public_values.py`) must all stay.
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
