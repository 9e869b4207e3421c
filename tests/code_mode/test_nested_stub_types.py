"""Code mode's type check holds at every depth of a real listing: a wrong value in any field of any nested stub type is
refused before the code runs (`CodeTypeError`), and nothing is sent.

ms-365's SharePoint list type has a field named `list`, and the fields after it are annotated `list[...]`: the stub
must not let the key change what `list[...]` means (ty would read it as a subscript of the key's type, and the
field types would become unknown, so a string for `columns` would pass the check).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = [pytest.mark.anyio, pytest.mark.slow(reason="ty and the sandbox over stubs of nested types, one run per shape")]

TOOL = "create_sharepoint_list"
#: A value no generated annotation takes (only `Any` would).
WRONG = "1j"


def stub_types(stub: str) -> dict[str, dict[str, ast.expr]]:
    """Each `TypedDict` of the stub (class or functional form) -> its keys and their annotations."""
    found: dict[str, dict[str, ast.expr]] = {}
    for node in ast.parse(stub).body:
        if isinstance(node, ast.ClassDef):
            found[node.name] = {
                item.target.id: item.annotation
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.value.args) == 2:
            shape = node.value.args[1]
            assert isinstance(shape, ast.Dict) and isinstance(node.targets[0], ast.Name)
            found[node.targets[0].id] = {
                ast.literal_eval(key): _unquoted(value)
                for key, value in zip(shape.keys, shape.values, strict=True)
                if key
            }
    return found


def _unquoted(annotation: ast.expr) -> ast.expr:
    """A quoted forward reference (`"NotRequired[Item]"`) as the expression it quotes."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return ast.parse(annotation.value, mode="eval").body
    return annotation


def value_reaching(annotation: ast.expr, target: str, inner: str) -> str | None:
    """Source of a value of `annotation` whose `target` TypedDict is the dict `inner`, or None if it holds none."""
    if isinstance(annotation, ast.Name):
        return inner if annotation.id == target else None
    if isinstance(annotation, ast.BinOp):  # a union: the member that holds it
        return value_reaching(annotation.left, target, inner) or value_reaching(annotation.right, target, inner)
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
        wrapper, argument = annotation.value.id, annotation.slice
        if wrapper in ("NotRequired", "Required"):
            return value_reaching(argument, target, inner)
        if wrapper == "list":
            held = value_reaching(argument, target, inner)
            return None if held is None else f"[{held}]"
        if wrapper == "dict" and isinstance(argument, ast.Tuple):
            held = value_reaching(argument.elts[1], target, inner)
            return None if held is None else f"{{'k': {held}}}"
    return None


def wrong_values(types: dict[str, dict[str, ast.expr]], start: str) -> Iterator[tuple[str, str, str]]:
    """(class, key, value of `start` with `WRONG` at that key) for every key of every type `start` reaches, each
    type once, nearest first; keys typed `Any` (which takes anything) left out."""
    paths: dict[str, str] = {start: "{%s}"}  # class -> the value reaching it, `%s` where its keys go
    queue = [start]
    while queue:
        name = queue.pop(0)
        for key, annotation in types[name].items():
            if "Any" not in ast.unparse(annotation):
                yield name, key, paths[name] % f"{key!r}: {WRONG}"
            for held in sorted({n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)} & types.keys()):
                if held not in paths:
                    reached = value_reaching(annotation, held, "{%s}")
                    if reached is not None:
                        paths[held] = paths[name] % f"{key!r}: {reached}"
                        queue.append(held)


async def test_a_wrong_value_at_any_depth_of_a_real_listing_is_refused_and_nothing_is_sent(
    code_ms365: ModuleType,
) -> None:
    stub = (Path(code_ms365.__file__).parent / "code_api.pyi").read_text(encoding="utf-8")
    types = stub_types(stub)
    function = next(n for n in ast.parse(stub).body if isinstance(n, ast.AsyncFunctionDef) and n.name == TOOL)
    body = next(a.annotation for a in function.args.kwonlyargs if a.arg == "body")
    assert isinstance(body, ast.Name)
    assert "list" in types[body.id] or any("list" in keys for keys in types.values())  # the shadowing name is there
    cases = list(wrong_values(types, body.id))
    assert len(cases) > 100 and len({name for name, _, _ in cases}) > 10
    calls = [f"await api.{TOOL}(site_id='s1', body={value})" for _, _, value in cases]
    # The program of the issue: `columns` (annotated `list[...]` after the key `list`) given a string.
    calls.append(f"await api.{TOOL}(site_id='s1', body={{'displayName': 'X', 'columns': 'not a list'}})")
    code = "import code_ms365_client as api\n" + "\n".join(calls) + "\n"
    testing = __import__("code_ms365_client.testing", fromlist=["FakeServer"])
    fake = testing.FakeServer()
    async with code_ms365.AsyncClient.in_process(fake) as client:
        with pytest.raises(code_ms365.CodeTypeError) as raised:
            await client.run_code(code)
        assert raised.value.calls == () and fake.calls_to("create-sharepoint-list") == []
        errors = re.findall(r"^code\.py:(\d+):\d+: error(.*)$", str(raised.value), re.MULTILINE)
        # Each line is refused at the wrong value's own key (not only for what the value around it lacks).
        refused = {(int(line), key) for line, text in errors for key in re.findall(r'to key "(.*?)" .*`complex', text)}
        unrefused = [case for number, case in enumerate(cases, start=2) if (number, case[1]) not in refused]
        assert unrefused == [], unrefused[:5]
        assert any(int(line) == len(calls) + 1 and "not a list" in text for line, text in errors)
        # The same call with a list is checked, run and sent.
        ran = await client.run_code(
            f"import code_ms365_client as api\nawait api.{TOOL}(site_id='s1', body={{'displayName': 'X', 'columns': []}})"
        )
    assert ran.value is not None
    [call] = fake.calls_to("create-sharepoint-list")
    assert call.arguments == {"siteId": "s1", "body": {"displayName": "X", "columns": []}}
