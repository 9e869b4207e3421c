"""Import generated packages in a fresh interpreter and check that server text came through as data.

    python check_packages.py MANIFEST.json

The manifest lists `{"root", "marker", "packages": [{"package", "expected"}]}`; each `expected` file
holds the listing the package was generated from (plus the template variables and the tools that
got permissive models). Prints one JSON list of failures on stdout (empty when all is well).
Run by tests/security/test_injection.py; it must not import the tests' own modules.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any


def data_values(schema: Any) -> list[Any]:
    """Every enum member, const and default anywhere in a JSON schema."""
    found: list[Any] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "enum" and isinstance(value, list):
                found.extend(value)
            elif key in ("const", "default"):
                found.append(value)
            if key not in ("enum", "const", "default"):
                found.extend(data_values(value))
    elif isinstance(schema, list):
        for item in schema:
            found.extend(data_values(item))
    return found


#: mypy's bound for an integer in Literal[...]: the generator drops (and reports) an enum or const holding a wider one.
_LITERAL_INT_MAX = 2**63 - 1


def _typeable(members: list[Any]) -> bool:
    return not any(isinstance(v, int) and not isinstance(v, bool) and abs(v) > _LITERAL_INT_MAX for v in members)


def expected_values(schema: Any, *, optional_property: bool = False, untypeable: list[Any] | None = None) -> list[Any]:
    """The enum members and consts anywhere, and the defaults of optional object properties, of a raw schema.

    (A default on a required property means nothing to validation; the models leave it out.) Enums and consts
    that cannot be typed go to `untypeable` instead: the generator must have reported them.
    """
    found: list[Any] = []
    if not isinstance(schema, dict):
        return found
    for members in ([schema["enum"]] if isinstance(schema.get("enum"), list) else []) + (
        [[schema["const"]]] if "const" in schema else []
    ):
        if _typeable(members):
            found.extend(members)
        elif untypeable is not None:
            untypeable.append(members)
    if optional_property and "default" in schema:
        found.append(schema["default"])
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for name, sub in properties.items():
            found.extend(expected_values(sub, optional_property=name not in required, untypeable=untypeable))
    items = schema.get("items")
    if isinstance(items, dict):
        found.extend(expected_values(items, untypeable=untypeable))
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for branch in branches:
                found.extend(expected_values(branch, untypeable=untypeable))
    return found


def _contains(values: list[Any], wanted: Any) -> bool:
    return any(type(value) is type(wanted) and value == wanted for value in values)


def check_package(name: str, expected: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    listing = expected["listing"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        package = importlib.import_module(name)
        models = importlib.import_module(f"{name}.models")
        loaded = {attr: getattr(models, attr) for attr in dir(models)}
        schemas = {attr: cls.model_json_schema() for attr, cls in loaded.items()}
    for warning in caught:
        problems.append(f"warning at import: {warning.category.__name__}: {str(warning.message)[:200]}")
    assert schemas is not None

    info = listing["serverInfo"]
    server_name = info.get("name") if isinstance(info.get("name"), str) and info.get("name") else "mcp-server"
    if package.SERVER_NAME != server_name:
        problems.append("SERVER_NAME differs")
    version = info.get("version") if isinstance(info.get("version"), str) else None
    if package.SERVER_VERSION != version:
        problems.append("SERVER_VERSION differs")

    tools = {tool["name"]: tool for tool in listing["tools"]}
    if set(package.TOOLS) != set(tools):
        problems.append(f"TOOLS keys {sorted(package.TOOLS)!r} != {sorted(tools)!r}")
    for wire, tool in tools.items():
        spec = package.TOOLS.get(wire)
        if spec is None:
            continue
        where = f"tool {wire!r}"
        description = tool.get("description") if isinstance(tool.get("description"), str) else None
        if spec.description != description:
            problems.append(f"{where}: description differs")
        if spec.input_schema != tool["inputSchema"]:
            problems.append(f"{where}: input_schema differs")
        if spec.output_schema != tool.get("outputSchema"):
            problems.append(f"{where}: output_schema differs")
        if spec.annotations != tool.get("annotations"):
            problems.append(f"{where}: annotations differ")
        if spec.name != wire:
            problems.append(f"{where}: spec.name is {spec.name!r}")
        for client in (package.AsyncClient, package.Client):
            method = getattr(client, spec.python_name, None)
            if not callable(method):
                problems.append(f"{where}: {client.__name__}.{spec.python_name} missing")
        if inspect.iscoroutinefunction(getattr(package.AsyncClient, spec.python_name, None)) is False:
            problems.append(f"{where}: AsyncClient.{spec.python_name} is not async")
        arguments = spec.arguments_model.model_json_schema()
        result_model = spec.result_model
        result = result_model.model_json_schema() if result_model is not None else None
        if wire in expected["permissive"]:
            continue
        untypeable: list[Any] = []
        have = data_values(arguments)
        for value in expected_values(tool["inputSchema"], untypeable=untypeable):
            if not _contains(have, value):
                problems.append(f"{where}: {value!r:.80} missing from the arguments model's JSON schema")
        if result is not None:
            have = data_values(result)
            for value in expected_values(tool.get("outputSchema"), untypeable=untypeable):
                if not _contains(have, value):
                    problems.append(f"{where}: {value!r:.80} missing from the result model's JSON schema")
        reported = [loc for loc in expected.get("untypeable", []) if loc.startswith(f"tools.{wire}.")]
        if untypeable and not reported:
            problems.append(f"{where}: an enum or const beyond 64 bits was left out without a warning")
        problems.extend(_round_trip_enums(spec, tool["inputSchema"], where))

    prompts = {prompt["name"]: prompt for prompt in listing["prompts"]}
    if set(package.PROMPTS) != set(prompts):
        problems.append("PROMPTS keys differ")
    for wire, prompt in prompts.items():
        spec = package.PROMPTS.get(wire)
        if spec is None:
            continue
        if spec.description != prompt.get("description") or spec.title != prompt.get("title"):
            problems.append(f"prompt {wire!r}: description or title differs")
        if sorted(a for a, _, _ in spec.arguments) != sorted(a["name"] for a in prompt["arguments"]):
            problems.append(f"prompt {wire!r}: argument names differ")
        if not callable(getattr(package.client.AsyncPrompts, spec.python_name, None)):
            problems.append(f"prompt {wire!r}: no method {spec.python_name}")

    resources = {item["uri"]: item for item in listing["resources"]}
    if set(package.RESOURCES) != set(resources):
        problems.append("RESOURCES keys differ")
    for uri, item in resources.items():
        spec = package.RESOURCES.get(uri)
        if spec is not None and (spec.uri != uri or spec.name != (item["name"] or uri)):
            problems.append(f"resource {uri!r}: uri or name differs")
        if spec is not None and not callable(getattr(package.client.AsyncResources, spec.python_name, None)):
            problems.append(f"resource {uri!r}: no method {spec.python_name}")

    templates = {item["uriTemplate"]: item for item in listing["resourceTemplates"]}
    if set(package.TEMPLATES) != set(templates):
        problems.append("TEMPLATES keys differ")
    for uri_template, item in templates.items():
        spec = package.TEMPLATES.get(uri_template)
        if spec is None:
            continue
        if spec.uri_template != uri_template or spec.name != (item["name"] or uri_template):
            problems.append(f"template {uri_template!r}: uri_template or name differs")
        if [wire for wire, _ in spec.variables] != expected["templateVariables"][uri_template]:
            problems.append(f"template {uri_template!r}: variables differ")
        if not callable(getattr(package.client.AsyncResources, spec.python_name, None)):
            problems.append(f"template {uri_template!r}: no method {spec.python_name}")
    return problems


def _round_trip_enums(spec: Any, schema: dict[str, Any], where: str) -> list[str]:
    """Each enum member of a top-level string property validates and dumps back to the same JSON."""
    problems: list[str] = []
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    for wire, prop in properties.items():
        if not isinstance(prop, dict) or prop.get("type") != "string" or not isinstance(prop.get("enum"), list):
            continue
        if required - {wire}:
            continue
        for value in prop["enum"]:
            try:
                model = spec.arguments_model.model_validate({wire: value})
            except Exception as error:  # noqa: BLE001 - reported, not raised
                problems.append(f"{where}: enum member {value!r:.60} of {wire!r:.40} rejected: {error!s:.200}")
                continue
            dumped = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
            if dumped != {wire: value}:
                problems.append(f"{where}: enum member {value!r:.60} of {wire!r:.40} dumps as {dumped!r:.120}")
    return problems


def main(manifest_path: str) -> int:
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    sys.path.insert(0, manifest["root"])
    marker = Path(manifest["marker"])
    failures: list[dict[str, Any]] = []
    for entry in manifest["packages"]:
        expected = json.loads(Path(entry["expected"]).read_text(encoding="utf-8"))
        try:
            problems = check_package(entry["package"], expected)
        except BaseException:  # noqa: BLE001 - any failure of a package is a finding
            problems = [traceback.format_exc(limit=-8)]
        if marker.exists():
            problems.append(f"the marker file {marker} exists: server text was executed")
        if problems:
            failures.append({"package": entry["package"], "expected": entry["expected"], "problems": problems})
    print(json.dumps(failures))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
