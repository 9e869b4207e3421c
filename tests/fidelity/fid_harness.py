"""The fidelity tests' harness: a generated package served by the echo server, one call judged against jsonschema.

    with served_package(tmp_dir, tools, "pkg") as served:
        outcome = served.send("tool", {"n": 1})       # Sent(arrived=...) or Refused(error, sent=False)
        assert_faithful(served, "tool", {"n": 1})      # what jsonschema accepts arrives as given; the rest is refused

The package is generated in-process from a snapshot of the raw `tools`, imported, and its blocking `Client` talks
over stdio to `echo_server.py`, which lists the same raw tools and answers each call with the arguments it read
from the raw JSON-RPC line. Every call the server gets is appended to an arrivals log, so "refused before
sending" is checked at the server, not only by the exception type.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import sys
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from inspect import Parameter
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
from helpers import generate_into, imported_package, snapshot_of
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from pydantic.fields import FieldInfo
from schema_values import ANY_JSON, near_misses, values_for

from mcp_codegen.diagnostics import Diagnostics

ECHO_SERVER = Path(__file__).resolve().with_name("echo_server.py")
DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT2020 = "https://json-schema.org/draft/2020-12/schema"
#: The keyword of a generated method that takes arguments beyond the schema's listed properties, by wire name.
EXTRA_ARGUMENTS = "extra_arguments"
_KEY_KEYWORDS = ("patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentSchemas")


@dataclass(frozen=True)
class Sent:
    arrived: Any  # the arguments as the server decoded them from the raw line


@dataclass(frozen=True)
class Refused:
    error: BaseException
    sent: bool  # something reached the server all the same


@dataclass
class Served:
    package: ModuleType
    client: Any
    log: Path
    diagnostics: Diagnostics
    tools: dict[str, dict[str, Any]]

    def arrivals(self) -> int:
        return self.log.read_text(encoding="utf-8").count("\n")

    def method_for(self, tool: str, arguments: Mapping[str, Any]) -> tuple[Any, dict[str, Any]] | None:
        """The typed method and its keyword arguments for `arguments` (see `typed_keywords`), or None."""
        spec = self.package.TOOLS[tool]
        method = getattr(self.client, spec.python_name)
        keywords = typed_keywords(spec, method, arguments)
        return None if keywords is None else (method, keywords)

    def send(self, tool: str, arguments: Mapping[str, Any], *, typed: bool = True) -> Sent | Refused:
        """Call `tool` through its typed method (`typed`, when it can take `arguments`), else `client.call`."""
        refused_class = self.package.ArgumentsValidationError
        typed_call = self.method_for(tool, arguments) if typed else None
        before = self.arrivals()
        try:
            if typed_call is not None:
                method, keywords = typed_call
                result = method(**keywords)
            else:  # the typed method cannot take them: the validated untyped call
                result = self.client.call(tool, dict(arguments))
        except refused_class as error:
            return Refused(error, sent=self.arrivals() != before)
        return Sent(json.loads(result.text))


def validator_for(schema: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    """jsonschema's validator in the schema's own dialect (2020-12 when it names none); formats not asserted."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def typed_keywords(spec: Any, method: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The keyword arguments of the typed `method` of `spec` for wire `arguments`: keys without a parameter of
    their own in `extra_arguments` (or as `**arguments` of a permissive method); None when the method cannot take
    them or they lack a parameter it requires."""
    parameters = inspect.signature(method).parameters
    wire_to_python = {wire: name for name, wire in _wire_names(spec.arguments_model).items()}
    keywords: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in arguments.items():
        name = wire_to_python.get(key, key)
        if name in parameters and name != EXTRA_ARGUMENTS and parameters[name].kind is not Parameter.VAR_KEYWORD:
            keywords[name] = value
        else:
            extra[key] = value
    if extra and EXTRA_ARGUMENTS in parameters:
        keywords[EXTRA_ARGUMENTS] = extra
    elif extra and any(p.kind is Parameter.VAR_KEYWORD for p in parameters.values()):
        keywords.update(extra)
    elif extra:
        return None
    required = {name for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    return keywords if required <= set(keywords) else None


def _wire_names(model: Any) -> dict[str, str]:
    """The model's Python field names -> wire names, read from its annotations (pydantic leaves a field whose
    annotation names a class defined further down unresolved, alias and all, until the model is first used)."""
    hints = typing.get_type_hints(model, include_extras=True)
    names: dict[str, str] = {}
    for name, info in model.model_fields.items():
        aliases = [item.alias for item in getattr(hints.get(name), "__metadata__", ()) if isinstance(item, FieldInfo)]
        names[name] = info.alias or next((alias for alias in aliases if alias), name)
    return names


def says_extra_keys(schema: Mapping[str, Any]) -> bool:
    """Whether a root schema says which keys it takes beyond its listed properties, so that its typed method
    must take them (`extra_arguments`); a schema that merely leaves `additionalProperties` out allows any key, and
    those go through `client.call(name, {...})` (docs/explanation/arguments.md, "Extra keys")."""
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if keyword in schema and schema[keyword] is not False:
            return True
    return any(keyword in schema for keyword in _KEY_KEYWORDS)


def same_form(arrived: Any, given: Mapping[str, Any]) -> bool:
    """Each top-level argument arrived as `json.dumps` writes what was given (nested key order and 1 vs 1.0 kept).

    The order of the top-level keys is the method's (keyword arguments have none of their own)."""
    if not isinstance(arrived, dict) or set(arrived) != set(given):
        return False
    return all(json.dumps(arrived[key]) == json.dumps(value) for key, value in given.items())


def assert_faithful(served: Served, tool: str, arguments: dict[str, Any]) -> None:
    """What the tool's schema accepts arrives as given; what it refuses is refused before sending."""
    schema = served.tools[tool]["inputSchema"]
    valid = validator_for(schema).is_valid(arguments)
    given = json.dumps(arguments)
    outcome = served.send(tool, arguments)
    if valid:
        unlisted = set(arguments) - set(schema.get("properties") or {})
        if not unlisted or says_extra_keys(schema):  # else `call()` is the documented way for unlisted keys
            assert served.method_for(tool, arguments) is not None, f"{tool}: the typed method cannot take {given}"
        assert isinstance(outcome, Sent), f"{tool}: valid arguments {given} refused: {getattr(outcome, 'error', '')}"
        assert same_form(outcome.arrived, arguments), f"{tool}: sent {given}, arrived {json.dumps(outcome.arrived)}"
    else:
        assert isinstance(outcome, Refused), f"{tool}: invalid arguments {given} were sent as {outcome}"
        assert not outcome.sent, f"{tool}: refused, yet {given} reached the server"


@contextlib.contextmanager
def served_package(directory: Path, tools: list[dict[str, Any]], package_name: str) -> Iterator[Served]:
    """Generate `package_name` from `tools` in `directory`, import it, and connect it to the echo server."""
    diagnostics = generate_into(directory, snapshot_of(tools, formatVersion=2), package_name)
    tools_file = directory / f"{package_name}.tools.json"
    tools_file.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    log = directory / f"{package_name}.arrivals"
    log.write_text("", encoding="utf-8")
    with imported_package(directory / package_name) as package:
        server = [str(ECHO_SERVER), str(tools_file), str(log)]
        with package.Client.stdio(sys.executable, server, timeout=60, stderr="discard") as client:
            yield Served(package, client, log, diagnostics, {tool["name"]: tool for tool in tools})


def examples(count: int) -> settings:
    """Hypothesis settings of the fidelity tests: `count` examples, no deadline (stdio calls on a loaded machine),
    and no shrinking: on a client that fails many examples it took minutes, and the drawn values are small."""
    return settings(
        max_examples=count,
        deadline=None,
        report_multiple_bugs=False,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects for a tool: likely-valid ones drawn from its schema, near misses of those, or any."""
    listed = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    anything = st.fixed_dictionaries({}, optional={name: ANY_JSON for name in listed}) | st.dictionaries(
        st.text(max_size=3), ANY_JSON, max_size=2
    )
    likely = values_for(schema).filter(lambda value: isinstance(value, dict))
    near = likely.flatmap(near_misses)
    return st.one_of(likely, near, likely, near, anything)  # mostly close to the schema, some of anything
