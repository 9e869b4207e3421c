"""Hostile server listings for the security tests: payloads, hypothesis strategies and static checks.

Every payload that could ever run as code tries to create `MARKER` (a fixed path in the temp dir, so
the examples stay reproducible): if any generated file executed server text, the marker would appear.
Names cover what the generated code itself uses (keywords, builtins, dunders, pydantic's `model_*`,
`self`, the runtime's own names) and names that collide after snake_case.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

MARKER = Path(tempfile.gettempdir()) / "mcp-codegen-injection-marker"
_M = repr(str(MARKER))
#: The code every payload tries to smuggle in; a call to it anywhere in generated code is an injection.
TOUCH = f"__import__('pathlib').Path({_M}).touch()"
CANARY = "PWNED_CANARY"

#: Ways out of a string literal, a docstring, a comment, a Jinja template, an f-string, a signature.
CODE_PAYLOADS: tuple[str, ...] = (
    TOUCH,
    f"\n{TOUCH}\n",
    f'"""\n{TOUCH}\n"""',
    f"'''\n{TOUCH}\n'''",
    f'"""; {TOUCH}; """',
    f"'''; {TOUCH}; '''",
    f"'); {TOUCH}; ('",
    f'"); {TOUCH}; ("',
    f'\\"); {TOUCH}; ("',
    f"\\'); {TOUCH}; ('",
    f'\\"""\n{TOUCH}\n"""',
    f'""""\n{TOUCH}\n#',
    f'"\n{TOUCH}\n"',
    f"\\\n{TOUCH}",
    f"\r{TOUCH}\r",
    f"\r\n{TOUCH}\r\n",
    f"\u2028{TOUCH}\u2029",
    f"\x85{TOUCH}",
    f"\x0c{TOUCH}\x0b",
    f"\x00{TOUCH}\x00",
    f"# type: ignore\n{TOUCH}",
    f"x  # type: ignore[misc]\n{TOUCH}  # noqa",
    f"{{{{ {TOUCH} }}}}",
    f"{{% set _ = {TOUCH} %}}",
    "{{ self.__init__.__globals__ }}{% raw %}{% endraw %}{# comment #}",
    f"{{{TOUCH}}}",
    f"{{{CANARY}()}}",
    f"]]\n{TOUCH}\n[[",
    f") -> None:\n    {TOUCH}\n    def _(",
    f"=None):\n        {TOUCH}\n#",
    f"\n    {TOUCH}\n",
    f"\n\t{TOUCH}",
    f'r"""\\"""\n{TOUCH}\n#',
    f"\\N{{LATIN SMALL LETTER A}}\\x00\\u2028\\\n{TOUCH}",
    f"\\u0022\\u0022\\u0022\n{TOUCH}",
    f"*/ {CANARY}() /*",
    f"<!-- {TOUCH} --><script>{CANARY}()</script>",
    f"`{TOUCH}`\n```python\n{TOUCH}\n```",
)
#: Unicode that formatters, tokenizers or editors treat specially.
ODD_TEXT: tuple[str, ...] = (
    "",
    " ",
    '"',
    '""',
    '"""',
    "'",
    "\\",
    "\\\\",
    "\n",
    "\r",
    "\t",
    "\x00",
    "\u2028",
    "\u2029",
    "\u202e",  # right-to-left override
    "\u200b",  # zero width space
    "\ufeff",  # BOM
    "ünïcødé ✓ 名前 ß İ ﬁ 𝔘 🙂",
    "e\u0301",  # combining accent
    "a" * 300,
)
SPECIAL_NAMES: tuple[str, ...] = (
    *keyword.kwlist,
    *keyword.softkwlist,
    "str", "int", "float", "bool", "list", "dict", "set", "type", "id", "object", "property", "super",
    "print", "open", "len", "range", "exec", "eval", "compile", "__import__", "breakpoint", "input",
    "__init__", "__class__", "__dict__", "__getattr__", "__name__", "__slots__", "__all__", "__annotations__",
    "__module__", "__doc__", "__future__", "__builtins__", "_", "__", "_private",
    "model_config", "model_dump", "model_fields", "model_validate", "model_construct", "model_x", "model_",
    "schema", "json", "copy", "fields", "validate", "construct", "parse_obj", "root", "Model",
    "self", "cls",
    "call", "session", "close", "connect", "http", "stdio", "from_session", "prompts", "resources", "tools",
    "AsyncClient", "Client", "TOOLS", "PROMPTS", "RESOURCES", "TEMPLATES", "NOT_SENT", "NotSent",
    "models", "annotations", "_runtime", "_shared", "ToolResult", "ToolSpec", "PromptResult",
    "specs", "client", "mro", "register",
    "ResourceResult", "SNAPSHOT", "LAUNCH", "SERVER_NAME", "SERVER_VERSION", "TOOL_PREFIX", "_MODELS",
    "Final", "Any", "Literal", "Mapping", "TYPE_CHECKING", "ClassVar", "Field", "BaseModel", "ConfigDict",
    "Annotated", "RootModel", "Enum", "Optional", "Union", "List", "Dict", "AnyUrl", "AwareDatetime",
    "_call_tool", "_run", "_async", "_get", "_read", "_read_template", "_tools", "_launch",
    "getSum", "get_sum", "get-sum", "GET_SUM", "get sum", "Get-Sum", "get__sum", "get_sum_", "get.sum",
    "get_sum_2", "getSum2", "get_sum2",
    "", "-", "1", "123abc", "0x10", "a.b", "a/b", "~1", "#", "$ref", "*", "a b", "x'y", 'q"q', "ü", "名前", "ß",
    "ﬁle", "İd", "\u0301", "a\x00b", "a\nb",
)  # fmt: skip
_PAYLOADS = CODE_PAYLOADS + ODD_TEXT


def _long(text: str) -> str:
    """`text` repeated past 10,000 characters (cheaper than asking hypothesis for 10k draws)."""
    return (text or "x") * (10_000 // max(1, len(text or "x")) + 1)


_SHORT_TEXT = st.text(
    alphabet=st.sampled_from(list("aZ_-. '\"\\{}%#\n\r\t\x00\u2028\u2029ü名🙂$/")),
    max_size=12,
)


def _mix(parts: list[str]) -> str:
    return "".join(parts)


_plain_texts = st.one_of(
    st.sampled_from(_PAYLOADS),
    st.lists(st.one_of(st.sampled_from(_PAYLOADS), _SHORT_TEXT), min_size=1, max_size=3).map(_mix),
    st.text(max_size=20),
)
#: Server text (descriptions, titles, enum values, defaults, URIs...); about one in 40 is over 10,000 characters.
texts: st.SearchStrategy[str] = st.integers(0, 39).flatmap(
    lambda pick: st.sampled_from(CODE_PAYLOADS).map(_long) if pick == 0 else _plain_texts
)


#: Wire names (tools, properties, prompts, arguments, template variables).
names: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(SPECIAL_NAMES),
    st.sampled_from(SPECIAL_NAMES),
    st.sampled_from(CODE_PAYLOADS),
    st.lists(st.sampled_from(SPECIAL_NAMES + ("_", "-", " ", "2")), min_size=2, max_size=3).map(_mix),
    _SHORT_TEXT,
)


@st.composite
def string_property(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if draw(st.booleans()):
        schema["description"] = draw(texts)
    if draw(st.booleans()):
        schema["title"] = draw(texts)
    kind = draw(st.sampled_from(["enum", "const", "pattern", "plain"]))
    if kind == "enum":
        schema["enum"] = draw(st.lists(texts, min_size=1, max_size=4, unique=True))
        if draw(st.booleans()):
            schema["default"] = draw(st.sampled_from(schema["enum"]))
    elif kind == "const":
        schema["const"] = draw(texts)
    elif kind == "pattern":
        # Python compiles most of these; the ones it does not are dropped with a warning.
        schema["pattern"] = draw(texts)
        if draw(st.booleans()):
            schema["default"] = draw(texts)
    elif draw(st.booleans()):
        schema["default"] = draw(texts)
    return schema


@st.composite
def scalar_property(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["integer", "number", "boolean", "null"]))
    schema: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        schema["description"] = draw(texts)
    if kind == "integer" and draw(st.booleans()):
        schema["enum"] = draw(st.lists(st.integers(-(2**70), 2**70), min_size=1, max_size=3, unique=True))
    if kind == "integer" and draw(st.booleans()):
        schema["default"] = draw(st.sampled_from(schema["enum"])) if "enum" in schema else draw(st.integers())
    if kind == "number" and draw(st.booleans()):
        schema["default"] = draw(st.floats(allow_nan=False, allow_infinity=False))
    if kind == "boolean" and draw(st.booleans()):
        schema["default"] = draw(st.booleans())
    return schema


def _object(properties: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda props, description, required: {
            "type": "object",
            "properties": props,
            **({"description": description} if description is not None else {}),
            **({"required": sorted(props)[:required]} if required else {}),
        },
        properties,
        st.none() | texts,
        st.integers(0, 2),
    )


_leaf = st.one_of(string_property(), scalar_property())
property_schema: st.SearchStrategy[dict[str, Any]] = st.recursive(
    _leaf,
    lambda children: st.one_of(
        _object(st.dictionaries(names, children, max_size=3)),
        st.builds(lambda item: {"type": "array", "items": item}, children),
        st.builds(lambda a, b: {"anyOf": [a, b]}, children, children),
        st.builds(lambda item: {"type": ["string", "null"], "description": item}, texts),
    ),
    max_leaves=3,
)


@st.composite
def tool(draw: st.DrawFn, name: str) -> dict[str, Any]:
    properties = draw(st.dictionaries(names, property_schema, max_size=3))
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if properties and draw(st.booleans()):
        input_schema["required"] = sorted(draw(st.sets(st.sampled_from(sorted(properties)), max_size=2)))
    if draw(st.booleans()):
        input_schema["description"] = draw(texts)
    item: dict[str, Any] = {"name": name, "inputSchema": input_schema}
    if draw(st.booleans()):
        item["description"] = draw(texts)
    if draw(st.booleans()):
        item["title"] = draw(texts)
    if draw(st.booleans()):
        item["outputSchema"] = draw(_object(st.dictionaries(names, property_schema, max_size=3)))
    if draw(st.booleans()):
        item["annotations"] = {"title": draw(texts), "readOnlyHint": draw(st.booleans())}
    return item


@st.composite
def prompt(draw: st.DrawFn, name: str) -> dict[str, Any]:
    arguments = draw(st.lists(names, max_size=4, unique=True))
    item: dict[str, Any] = {
        "name": name,
        "arguments": [
            {"name": argument, "required": draw(st.booleans()), "description": draw(texts)} for argument in arguments
        ],
    }
    if draw(st.booleans()):
        item["description"] = draw(texts)
    if draw(st.booleans()):
        item["title"] = draw(texts)
    return item


@st.composite
def resource(draw: st.DrawFn, uri: str) -> dict[str, Any]:
    item: dict[str, Any] = {"uri": uri, "name": draw(st.one_of(names, texts))}
    if draw(st.booleans()):
        item["description"] = draw(texts)
    if draw(st.booleans()):
        item["mimeType"] = draw(texts)
    return item


_template_uris = st.builds(
    lambda prefix, variables, suffix: prefix + "".join("{" + v + "}/" for v in variables) + suffix,
    texts,
    st.lists(names.filter(lambda n: "{" not in n and "}" not in n and "," not in n), max_size=3),
    texts,
)


@st.composite
def template(draw: st.DrawFn, uri_template: str) -> dict[str, Any]:
    item: dict[str, Any] = {"uriTemplate": uri_template, "name": draw(st.one_of(names, texts))}
    if draw(st.booleans()):
        item["description"] = draw(texts)
    return item


def _unique_items(
    key_strategy: st.SearchStrategy[str], build: Any, max_size: int, min_size: int = 0, unique_by: Any = None
) -> Any:
    keys = st.lists(key_strategy, min_size=min_size, max_size=max_size, unique_by=unique_by or (lambda k: k))
    return keys.flatmap(lambda keys: st.tuples(*(build(key) for key in keys)).map(list))


@st.composite
def listings(draw: st.DrawFn) -> dict[str, Any]:
    """A snapshot (formatVersion 1) of 1-5 tools, 0-3 prompts, resources and templates."""
    server_info: dict[str, Any] = {"name": draw(texts), "version": draw(texts)}
    if draw(st.booleans()):
        server_info["title"] = draw(texts)
    return {
        "formatVersion": 1,
        "serverInfo": server_info,
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
        "instructions": draw(st.none() | texts),
        "tools": draw(_unique_items(names, tool, 5, min_size=1)),
        "prompts": draw(_unique_items(names, prompt, 3)),
        "resources": draw(_unique_items(st.one_of(texts, names), resource, 3)),
        "resourceTemplates": draw(_unique_items(_template_uris, template, 3)),
    }


# --------------------------------------------------------------------------------------------------
# Static checks of generated source
# --------------------------------------------------------------------------------------------------

_FORBIDDEN_CALLS = frozenset({"__import__", "exec", "eval", "compile", "open", "breakpoint", CANARY})


def non_ascii_identifiers(source: str) -> list[str]:
    """Identifiers that are not ASCII: naming.py must have made every name from server text ASCII."""
    return [name for node in ast.walk(ast.parse(source)) for name in _identifiers(node) if not name.isascii()]


def source_findings(tree: ast.AST, *, ascii_names: bool) -> list[str]:
    """Calls only an injected payload could make, and non-ASCII names when `ascii_names` (empty when clean)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id in _FORBIDDEN_CALLS) or (
                isinstance(func, ast.Attribute) and func.attr == "touch"
            ):
                found.append(ast.unparse(node)[:120])
        if ascii_names:
            found.extend(name for name in _identifiers(node) if not name.isascii())
    return found


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword) and node.arg is not None:
        return [node.arg]
    if isinstance(node, ast.alias):
        return [node.name, *([node.asname] if node.asname else [])]
    return []


BUILTIN_NAMES = frozenset(dir(builtins))
