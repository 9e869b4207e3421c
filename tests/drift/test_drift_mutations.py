"""The mutation matrix: one real listing, one change, exactly the expected findings (rule id, level, location).

Every rule of the rule table is exercised (a meta-test checks it), in both directions where that means something,
through nested objects, array items, union branches and `$ref`'d definitions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from drift_support import (
    Data,
    argument,
    input_props,
    output_props,
    prompt,
    resource,
    snapshot,
    source,
    template,
    tool,
)

from mcp_codegen.drift import RULES, diff_snapshots
from mcp_codegen.drift.result_rules import RESULT_RULES

Expected = tuple[str, str, str]  # (rule id, level, location)


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    mutate: Callable[[Data], Any]
    expected: tuple[Expected, ...]
    #: The mutated listing is the OLD side (the change runs from mutated to original).
    reverse: bool = False
    #: Applied to the old side only (a change between two non-default values).
    before: Callable[[Data], Any] | None = None


CASES: list[Case] = []


def case(
    case_id: str,
    source_name: str,
    *expected: Expected,
    reverse: bool = False,
    before: Callable[[Data], Any] | None = None,
) -> Callable[[Callable[[Data], Any]], None]:
    def register(mutate: Callable[[Data], Any]) -> None:
        CASES.append(Case(case_id, source_name, mutate, expected, reverse, before))

    return register


B, D, S = "breaking", "dangerous", "safe"

# ---- tools ---------------------------------------------------------------------------------------------------


@case("tool removed", "demo", ("tool-removed", B, "tools.forecast"))
def _(d: Data) -> None:
    d["tools"].remove(tool(d, "forecast"))


@case("tool renamed", "demo", ("tool-renamed", B, "tools.get_note"), ("tool-added", S, "tools.fetch_note"))
def _(d: Data) -> None:
    tool(d, "get_note")["name"] = "fetch_note"


@case("tool added", "demo", ("tool-added", S, "tools.ping"))
def _(d: Data) -> None:
    d["tools"].append({"name": "ping", "inputSchema": {"type": "object", "properties": {"host": {"type": "string"}}}})


@case("tool title", "demo", ("tool-title-changed", S, "tools.get_weather.title"))
def _(d: Data) -> None:
    tool(d, "get_weather")["title"] = "Weather now"


@case("tool description", "everything", ("tool-description-changed", S, "tools.get-sum.description"))
def _(d: Data) -> None:
    tool(d, "get-sum")["description"] += " Now with more precision."


@case("tool _meta", "demo", ("tool-metadata-changed", S, "tools.add._meta"))
def _(d: Data) -> None:
    tool(d, "add")["_meta"] = {"vendor/flag": True}


@case("annotation readOnly T->F", "demo", ("annotation-riskier", D, "tools.add.annotations.readOnlyHint"))
def _(d: Data) -> None:
    tool(d, "add")["annotations"]["readOnlyHint"] = False


@case(
    "annotation destructive F->default T",
    "everything",
    ("annotation-riskier", D, "tools.echo.annotations.destructiveHint"),
)
def _(d: Data) -> None:
    del tool(d, "echo")["annotations"]["destructiveHint"]  # the spec default is true: riskier


@case(
    "annotation openWorld T->F",
    "everything",
    ("annotation-safer", S, "tools.gzip-file-as-resource.annotations.openWorldHint"),
)
def _(d: Data) -> None:
    tool(d, "gzip-file-as-resource")["annotations"]["openWorldHint"] = False


@case(
    "annotation idempotent default F->T", "demo", ("annotation-safer", S, "tools.forecast.annotations.idempotentHint")
)
def _(d: Data) -> None:
    tool(d, "forecast")["annotations"]["idempotentHint"] = True


@case("taskSupport forbidden->required", "everything", ("task-support-required", B, "tools.echo.execution.taskSupport"))
def _(d: Data) -> None:
    tool(d, "echo")["execution"]["taskSupport"] = "required"


# ---- MCP Apps: a tool's _meta.ui, on the real PDF server's listing

VIEWER = "tools.display_pdf._meta.ui"


@case("tool became app-only", "pdf", ("tool-became-app-only", B, "tools.list_pdfs._meta.ui.visibility"))
def _(d: Data) -> None:
    tool(d, "list_pdfs")["_meta"] = {"ui": {"visibility": ["app"]}}


@case("app-only tool offered to models", "pdf", ("tool-became-model-visible", S, "tools.save_pdf._meta.ui.visibility"))
def _(d: Data) -> None:
    tool(d, "save_pdf")["_meta"]["ui"]["visibility"] = ["app", "model"]


@case("visibility lost app", "pdf", ("tool-visibility-changed", S, f"{VIEWER}.visibility"))
def _(d: Data) -> None:
    tool(d, "display_pdf")["_meta"]["ui"]["visibility"] = ["model"]


@case("UI resource moved", "pdf", ("tool-ui-resource-changed", D, f"{VIEWER}.resourceUri"))
def _(d: Data) -> None:
    meta = tool(d, "display_pdf")["_meta"]
    meta["ui"]["resourceUri"] = meta["ui/resourceUri"] = "ui://pdf-viewer/v2.html"


@case("UI resource removed", "pdf", ("tool-ui-removed", D, f"{VIEWER}.resourceUri"))
def _(d: Data) -> None:
    del tool(d, "display_pdf")["_meta"]


@case("UI added by the deprecated flat key", "pdf", ("tool-ui-added", S, "tools.interact._meta.ui.resourceUri"))
def _(d: Data) -> None:
    tool(d, "interact")["_meta"] = {"ui/resourceUri": "ui://pdf-viewer/mcp-app.html"}


@case("only the flat key changed", "pdf", ("tool-metadata-changed", S, "tools.display_pdf._meta"))
def _(d: Data) -> None:
    tool(d, "display_pdf")["_meta"]["ui/resourceUri"] = "ui://pdf-viewer/old.html"


@case("other _meta of a UI tool", "pdf", ("tool-metadata-changed", S, "tools.display_pdf._meta"))
def _(d: Data) -> None:
    tool(d, "display_pdf")["_meta"]["vendor/flag"] = True


@case(
    "taskSupport required->forbidden",
    "everything",
    ("task-support-forbidden", B, "tools.simulate-research-query.execution.taskSupport"),
)
def _(d: Data) -> None:
    tool(d, "simulate-research-query")["execution"]["taskSupport"] = "forbidden"


@case(
    "taskSupport optional->forbidden",
    "everything",
    ("task-support-narrowed", D, "tools.echo.execution.taskSupport"),
    reverse=True,
)
def _(d: Data) -> None:
    tool(d, "echo")["execution"]["taskSupport"] = "optional"


@case("taskSupport forbidden->optional", "everything", ("task-support-changed", S, "tools.echo.execution.taskSupport"))
def _(d: Data) -> None:
    tool(d, "echo")["execution"]["taskSupport"] = "optional"


@case("outputSchema removed", "demo", ("output-schema-removed", B, "tools.add.output"))
def _(d: Data) -> None:
    del tool(d, "add")["outputSchema"]


@case("outputSchema added", "demo", ("output-schema-added", D, "tools.forecast.output"))
def _(d: Data) -> None:
    tool(d, "forecast")["outputSchema"] = {"type": "object", "properties": {"text": {"type": "string"}}}


# ---- tool input schema ---------------------------------------------------------------------------------------


@case("input required property added", "demo", ("input-required-property-added", B, "tools.add.input.c"))
def _(d: Data) -> None:
    schema = tool(d, "add")["inputSchema"]
    schema["properties"]["c"] = {"type": "integer", "default": 0}
    schema["required"].append("c")


@case("input optional property added", "demo", ("input-optional-property-added", S, "tools.forecast.input.hourly"))
def _(d: Data) -> None:
    input_props(d, "forecast")["hourly"] = {"type": "boolean", "default": False}


@case("input property removed", "demo", ("input-property-removed", B, "tools.forecast.input.days"))
def _(d: Data) -> None:
    del input_props(d, "forecast")["days"]


@case("input optional->required", "demo", ("input-property-became-required", B, "tools.forecast.input.days"))
def _(d: Data) -> None:
    tool(d, "forecast")["inputSchema"]["required"].append("days")


@case(
    "input required->optional", "demo", ("input-property-became-optional", S, "tools.forecast.input.days"), reverse=True
)
def _(d: Data) -> None:
    tool(d, "forecast")["inputSchema"]["required"].append("days")


@case("input enum value removed", "demo", ("input-enum-value-removed", B, "tools.get_weather.input.units"))
def _(d: Data) -> None:
    input_props(d, "get_weather")["units"]["enum"].remove("fahrenheit")


@case("input enum value added", "demo", ("input-enum-value-added", S, "tools.get_weather.input.units"))
def _(d: Data) -> None:
    input_props(d, "get_weather")["units"]["enum"].append("kelvin")


@case("input free value became enum", "demo", ("input-enum-introduced", B, "tools.forecast.input.city"))
def _(d: Data) -> None:
    input_props(d, "forecast")["city"]["enum"] = ["Oslo", "Paris"]


@case("input enum became free value", "demo", ("input-enum-dropped", S, "tools.forecast.input.city"), reverse=True)
def _(d: Data) -> None:
    input_props(d, "forecast")["city"]["enum"] = ["Oslo", "Paris"]


@case("input number->integer", "demo", ("input-type-narrowed", B, "tools.add.input.a"), reverse=True)
def _(d: Data) -> None:
    input_props(d, "add")["a"]["type"] = "number"


@case("input integer->number", "demo", ("input-type-widened", S, "tools.add.input.a"))
def _(d: Data) -> None:
    input_props(d, "add")["a"]["type"] = "number"


@case("input type changed", "github", ("input-type-changed", B, "tools.create_issue.input.milestone"))
def _(d: Data) -> None:
    input_props(d, "create_issue")["milestone"]["type"] = "string"


@case("input [T,null]->T", "demo", ("input-no-longer-nullable", B, "tools.list_notes.input.tag"))
def _(d: Data) -> None:
    tag = input_props(d, "list_notes")["tag"]
    del tag["anyOf"]
    tag["type"] = "string"


@case("input T->[T,null]", "demo", ("input-became-nullable", S, "tools.forecast.input.city"))
def _(d: Data) -> None:
    input_props(d, "forecast")["city"]["type"] = ["string", "null"]


@case("input anyOf branch removed", "notion", ("input-branch-removed", B, "tools.API-post-page.input.parent"))
def _(d: Data) -> None:
    branches = input_props(d, "API-post-page")["parent"]["anyOf"]
    branches.remove({"type": "string"})


@case("input anyOf branch added", "notion", ("input-branch-added", S, "tools.API-post-page.input.parent"))
def _(d: Data) -> None:
    input_props(d, "API-post-page")["parent"]["anyOf"].append({"type": "integer"})


@case("input max lowered", "demo", ("input-constraint-tightened", B, "tools.forecast.input.days"))
def _(d: Data) -> None:
    input_props(d, "forecast")["days"]["maximum"] = 5


@case("input max raised", "demo", ("input-constraint-relaxed", S, "tools.forecast.input.days"))
def _(d: Data) -> None:
    input_props(d, "forecast")["days"]["maximum"] = 14


@case("input min raised", "demo", ("input-constraint-tightened", B, "tools.search-notes.input.query"))
def _(d: Data) -> None:
    input_props(d, "search-notes")["query"]["minLength"] = 3


@case("input pattern added", "demo", ("input-constraint-tightened", B, "tools.get_weather.input.city"))
def _(d: Data) -> None:
    input_props(d, "get_weather")["city"]["pattern"] = "^[A-Z][a-z]+$"


@case("input format removed", "notion", ("input-constraint-relaxed", S, "tools.API-post-page.input.icon"))
def _(d: Data) -> None:
    del input_props(d, "API-post-page")["icon"]["format"]


def _city_letters(d: Data) -> None:
    input_props(d, "get_weather")["city"]["pattern"] = "^[A-Za-z]+$"


@case(
    "input pattern changed", "demo", ("input-pattern-changed", D, "tools.get_weather.input.city"), before=_city_letters
)
def _(d: Data) -> None:
    input_props(d, "get_weather")["city"]["pattern"] = "^[A-Z]"


def _city_capitalised(d: Data) -> None:
    output_props(d, "get_weather")["city"]["pattern"] = "^[A-Z]"


@case(
    "output pattern changed",
    "demo",
    ("output-pattern-changed", D, "tools.get_weather.output.city"),
    before=_city_capitalised,
)
def _(d: Data) -> None:
    output_props(d, "get_weather")["city"]["pattern"] = "^[A-Z][a-z]"


@case("input default changed", "demo", ("input-default-changed", D, "tools.forecast.input.days"))
def _(d: Data) -> None:
    input_props(d, "forecast")["days"]["default"] = 5


@case("input default removed", "demo", ("input-default-changed", D, "tools.get_weather.input.units"))
def _(d: Data) -> None:
    del input_props(d, "get_weather")["units"]["default"]


@case("input default added", "demo", ("input-default-changed", D, "tools.get_weather.input.units"), reverse=True)
def _(d: Data) -> None:
    del input_props(d, "get_weather")["units"]["default"]


@case("input additionalProperties:false added", "demo", ("input-additional-properties-closed", D, "tools.add.input"))
def _(d: Data) -> None:
    tool(d, "add")["inputSchema"]["additionalProperties"] = False


@case(
    "input additionalProperties:false removed",
    "github",
    ("input-additional-properties-opened", S, "tools.create_issue.input"),
)
def _(d: Data) -> None:
    del tool(d, "create_issue")["inputSchema"]["additionalProperties"]


@case("input description", "demo", ("input-docs-changed", S, "tools.forecast.input.city"))
def _(d: Data) -> None:
    input_props(d, "forecast")["city"]["description"] = "Any city on Earth."


@case("input unknown keyword", "demo", ("input-keyword-changed", D, "tools.add.input.a"))
def _(d: Data) -> None:
    input_props(d, "add")["a"]["x-unit"] = "apples"


@case(
    "input nested $ref'd definition: constraint",
    "demo",
    ("input-constraint-tightened", B, "tools.draft_note.input.author.name"),
)
def _(d: Data) -> None:
    tool(d, "draft_note")["inputSchema"]["$defs"]["Author"]["properties"]["name"]["maxLength"] = 50


@case(
    "input nested $ref'd definition: optional->required",
    "demo",
    ("input-property-became-required", B, "tools.draft_note.input.author.email"),
)
def _(d: Data) -> None:
    tool(d, "draft_note")["inputSchema"]["$defs"]["Author"]["required"].append("email")


@case(
    "input nested required property added",
    "github",
    ("input-required-property-added", B, "tools.push_files.input.files[].mode"),
)
def _(d: Data) -> None:
    item = input_props(d, "push_files")["files"]["items"]
    item["properties"]["mode"] = {"type": "string"}
    item["required"].append("mode")


@case("input array items type changed", "demo", ("input-type-changed", B, "tools.draft_note.input.tags[]"))
def _(d: Data) -> None:
    branch = input_props(d, "draft_note")["tags"]["anyOf"][0]
    branch["items"]["type"] = "integer"


@case(
    "input $ref'd definition inside a union branch",
    "notion",
    ("input-constraint-relaxed", S, "tools.API-post-page.input.parent.anyOf[1].page_id"),
)
def _(d: Data) -> None:
    schema = tool(d, "API-post-page")["inputSchema"]
    del schema["$defs"]["pageIdParentRequest"]["properties"]["page_id"]["format"]


@case(
    "input $ref'd definition shared by two union branches of array items",
    "notion",
    (
        "input-enum-value-added",
        S,
        "tools.API-patch-block-children.input.children[].anyOf[0].bulleted_list_item.rich_text[].type",
    ),
    (
        "input-enum-value-added",
        S,
        "tools.API-patch-block-children.input.children[].anyOf[1].paragraph.rich_text[].type",
    ),
)
def _(d: Data) -> None:
    definition = tool(d, "API-patch-block-children")["inputSchema"]["$defs"]["richTextRequest"]
    definition["properties"]["type"]["enum"].append("mention")


# ---- tool output schema ----------------------------------------------------------------------------------------


@case(
    "output required field removed",
    "demo",
    ("output-required-property-removed", B, "tools.get_weather.output.humidity"),
)
def _(d: Data) -> None:
    schema = tool(d, "get_weather")["outputSchema"]
    del schema["properties"]["humidity"]
    schema["required"].remove("humidity")


@case(
    "output optional field removed", "demo", ("output-optional-property-removed", D, "tools.get_note.output.priority")
)
def _(d: Data) -> None:
    del output_props(d, "get_note")["priority"]


@case("output required->optional", "demo", ("output-property-became-optional", B, "tools.get_weather.output.units"))
def _(d: Data) -> None:
    tool(d, "get_weather")["outputSchema"]["required"].remove("units")


@case(
    "output optional->required",
    "demo",
    ("output-property-became-required", S, "tools.get_weather.output.units"),
    reverse=True,
)
def _(d: Data) -> None:
    tool(d, "get_weather")["outputSchema"]["required"].remove("units")


@case("output field added", "demo", ("output-property-added", S, "tools.get_weather.output.wind"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["wind"] = {"type": "number"}


@case(
    "output field added to a closed object",
    "everything",
    ("output-property-added-closed", B, "tools.get-structured-content.output.uv"),
)
def _(d: Data) -> None:
    output_props(d, "get-structured-content")["uv"] = {"type": "number"}


@case("output enum value added", "demo", ("output-enum-value-added", B, "tools.get_weather.output.conditions"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["conditions"]["enum"].append("foggy")


@case("output enum value removed", "demo", ("output-enum-value-removed", S, "tools.get_weather.output.conditions"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["conditions"]["enum"].remove("snowy")


@case("output free value became enum", "demo", ("output-enum-introduced", S, "tools.get_weather.output.city"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["city"]["enum"] = ["Oslo", "Paris"]


@case("output enum became free value", "demo", ("output-enum-dropped", B, "tools.get_weather.output.conditions"))
def _(d: Data) -> None:
    del output_props(d, "get_weather")["conditions"]["enum"]


@case("output integer->number", "demo", ("output-type-widened", B, "tools.get_weather.output.humidity"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["humidity"]["type"] = "number"


@case("output number->integer", "demo", ("output-type-narrowed", S, "tools.get_weather.output.temperature"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["temperature"]["type"] = "integer"


@case("output type changed", "demo", ("output-type-changed", B, "tools.get_weather.output.temperature"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["temperature"]["type"] = "string"


@case("output became nullable", "demo", ("output-became-nullable", B, "tools.get_weather.output.temperature"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["temperature"]["type"] = ["number", "null"]


@case("output no longer nullable ($ref'd)", "demo", ("output-no-longer-nullable", S, "tools.get_note.output.author"))
def _(d: Data) -> None:
    output_props(d, "get_note")["author"] = {"$ref": "#/$defs/Author", "default": None}


@case("output anyOf branch added", "demo", ("output-branch-added", B, "tools.get_weather.output.temperature"))
def _(d: Data) -> None:
    props = output_props(d, "get_weather")
    props["temperature"] = {
        "anyOf": [{"type": "number"}, {"type": "object", "properties": {"value": {"type": "number"}}}],
        "description": props["temperature"]["description"],
        "title": "Temperature",
    }


@case(
    "output anyOf branch removed",
    "demo",
    ("output-branch-removed", S, "tools.get_weather.output.temperature"),
    reverse=True,
)
def _(d: Data) -> None:
    props = output_props(d, "get_weather")
    props["temperature"] = {
        "anyOf": [{"type": "number"}, {"type": "object", "properties": {"value": {"type": "number"}}}],
        "description": props["temperature"]["description"],
        "title": "Temperature",
    }


@case("output max raised", "demo", ("output-constraint-relaxed", D, "tools.get_weather.output.humidity"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["humidity"]["maximum"] = 1000


@case("output max lowered", "demo", ("output-constraint-tightened", S, "tools.get_weather.output.humidity"))
def _(d: Data) -> None:
    output_props(d, "get_weather")["humidity"]["maximum"] = 50


@case("output default changed", "demo", ("output-default-changed", S, "tools.get_note.output.priority"))
def _(d: Data) -> None:
    output_props(d, "get_note")["priority"]["default"] = "low"


@case(
    "output additionalProperties:false removed",
    "everything",
    ("output-additional-properties-opened", D, "tools.get-structured-content.output"),
)
def _(d: Data) -> None:
    del tool(d, "get-structured-content")["outputSchema"]["additionalProperties"]


@case(
    "output additionalProperties:false added",
    "demo",
    ("output-additional-properties-closed", S, "tools.get_weather.output"),
)
def _(d: Data) -> None:
    tool(d, "get_weather")["outputSchema"]["additionalProperties"] = False


@case("output description", "demo", ("output-docs-changed", S, "tools.get_weather.output"))
def _(d: Data) -> None:
    tool(d, "get_weather")["outputSchema"]["description"] = "The weather."


@case("output unknown keyword", "demo", ("output-keyword-changed", D, "tools.add.output"))
def _(d: Data) -> None:
    tool(d, "add")["outputSchema"]["x-fastmcp-wrap-result"] = True


@case(
    "output $ref'd definition in array items: enum value added",
    "demo",
    ("output-enum-value-added", B, "tools.list_notes.output.result[].priority"),
)
def _(d: Data) -> None:
    tool(d, "list_notes")["outputSchema"]["$defs"]["Note"]["properties"]["priority"]["enum"].append("urgent")


@case(
    "output nested $ref'd definition through a nullable union",
    "demo",
    ("output-required-property-removed", B, "tools.get_note.output.author.name"),
)
def _(d: Data) -> None:
    author = tool(d, "get_note")["outputSchema"]["$defs"]["Author"]
    del author["properties"]["name"]
    author["required"].remove("name")


# ---- prompts -----------------------------------------------------------------------------------------------------


@case("prompt removed", "demo", ("prompt-removed", B, "prompts.plan_trip"))
def _(d: Data) -> None:
    d["prompts"].remove(prompt(d, "plan_trip"))


@case("prompt added", "demo", ("prompt-added", S, "prompts.pack_bags"))
def _(d: Data) -> None:
    d["prompts"].append({"name": "pack_bags", "arguments": [{"name": "days", "required": True}]})


@case(
    "prompt required argument added", "demo", ("prompt-required-argument-added", B, "prompts.plan_trip.arguments.days")
)
def _(d: Data) -> None:
    prompt(d, "plan_trip")["arguments"].append({"name": "days", "required": True})


@case(
    "prompt optional argument added",
    "everything",
    ("prompt-optional-argument-added", S, "prompts.args-prompt.arguments.zip"),
)
def _(d: Data) -> None:
    prompt(d, "args-prompt")["arguments"].append({"name": "zip"})


@case("prompt argument removed", "demo", ("prompt-argument-removed", B, "prompts.summarize_note.arguments.style"))
def _(d: Data) -> None:
    p = prompt(d, "summarize_note")
    p["arguments"] = [a for a in p["arguments"] if a["name"] != "style"]


@case(
    "prompt argument optional->required",
    "demo",
    ("prompt-argument-became-required", B, "prompts.summarize_note.arguments.style"),
)
def _(d: Data) -> None:
    argument(d, "summarize_note", "style")["required"] = True


@case(
    "prompt argument required->optional",
    "demo",
    ("prompt-argument-became-optional", S, "prompts.plan_trip.arguments.city"),
)
def _(d: Data) -> None:
    argument(d, "plan_trip", "city")["required"] = False


@case("prompt description", "demo", ("prompt-docs-changed", S, "prompts.summarize_note.description"))
def _(d: Data) -> None:
    prompt(d, "summarize_note")["description"] = "Summarize a note, briefly."


@case(
    "prompt argument description", "cyanheads-git", ("prompt-docs-changed", S, "prompts.git_wrapup.arguments.createTag")
)
def _(d: Data) -> None:
    argument(d, "git_wrapup", "createTag")["description"] = "Tag or not."


# ---- resources and templates -------------------------------------------------------------------------------------


@case("resource removed", "demo", ("resource-removed", D, "resources.config://app"))
def _(d: Data) -> None:
    d["resources"].clear()


@case("resource added", "demo", ("resource-added", S, "resources.config://limits"))
def _(d: Data) -> None:
    d["resources"].append({"uri": "config://limits", "name": "limits", "mimeType": "application/json"})


@case("resource mimeType changed", "demo", ("resource-mime-type-changed", B, "resources.config://app"))
def _(d: Data) -> None:
    resource(d, "config://app")["mimeType"] = "application/yaml"


@case("resource name changed", "demo", ("resource-name-changed", D, "resources.config://app"))
def _(d: Data) -> None:
    resource(d, "config://app")["name"] = "app_settings"


@case("resource description", "memory", ("resource-docs-changed", S, "resources.memory://knowledge-graph"))
def _(d: Data) -> None:
    d["resources"][0]["description"] = "The whole graph."


@case("template removed", "demo", ("template-removed", B, "resourceTemplates.notes://{note_id}"))
def _(d: Data) -> None:
    d["resourceTemplates"].clear()


@case(
    "template added", "everything", ("template-added", S, "resourceTemplates.demo://resource/dynamic/json/{resourceId}")
)
def _(d: Data) -> None:
    d["resourceTemplates"].append(
        {"name": "Dynamic JSON Resource", "uriTemplate": "demo://resource/dynamic/json/{resourceId}"}
    )


@case("template variable added", "demo", ("template-variable-added", B, "resourceTemplates.notes://{note_id}"))
def _(d: Data) -> None:
    template(d, "notes://{note_id}")["uriTemplate"] = "notes://{note_id}/revisions/{rev}"


@case(
    "template variable removed",
    "demo",
    ("template-variable-removed", B, "resourceTemplates.notes://{note_id}{?rev}"),
    reverse=True,
)
def _(d: Data) -> None:
    template(d, "notes://{note_id}")["uriTemplate"] = "notes://{note_id}{?rev}"


@case("template variable renamed", "demo", ("template-variable-renamed", B, "resourceTemplates.notes://{note_id}"))
def _(d: Data) -> None:
    template(d, "notes://{note_id}")["uriTemplate"] = "notes://{id}"


@case("template literal changed", "demo", ("template-literal-changed", B, "resourceTemplates.notes://{note_id}"))
def _(d: Data) -> None:
    template(d, "notes://{note_id}")["uriTemplate"] = "note://{note_id}"


@case("template mimeType changed", "demo", ("template-mime-type-changed", B, "resourceTemplates.notes://{note_id}"))
def _(d: Data) -> None:
    template(d, "notes://{note_id}")["mimeType"] = "text/plain"


@case("template name changed", "demo", ("template-name-changed", D, "resourceTemplates.notes://{note_id}"))
def _(d: Data) -> None:
    template(d, "notes://{note_id}")["name"] = "memo"


@case(
    "template description", "cyanheads-git", ("template-docs-changed", S, "resourceTemplates.git://working-directory")
)
def _(d: Data) -> None:
    d["resourceTemplates"][0]["description"] = "The working directory."


# ---- server --------------------------------------------------------------------------------------------------------


@case("capability prompts removed", "demo", ("capability-removed", B, "server.capabilities.prompts"))
def _(d: Data) -> None:
    del d["capabilities"]["prompts"]


@case(
    "capability resources.subscribe removed",
    "everything",
    ("capability-feature-removed", D, "server.capabilities.resources.subscribe"),
)
def _(d: Data) -> None:
    del d["capabilities"]["resources"]["subscribe"]


@case(
    "capability tools.listChanged true->false",
    "everything",
    ("capability-feature-removed", D, "server.capabilities.tools.listChanged"),
)
def _(d: Data) -> None:
    d["capabilities"]["tools"]["listChanged"] = False


@case("capability logging removed", "everything", ("capability-feature-removed", D, "server.capabilities.logging"))
def _(d: Data) -> None:
    del d["capabilities"]["logging"]


@case(
    "capability completions removed", "everything", ("capability-feature-removed", D, "server.capabilities.completions")
)
def _(d: Data) -> None:
    del d["capabilities"]["completions"]


@case("capability logging added", "demo", ("capability-added", S, "server.capabilities.logging"))
def _(d: Data) -> None:
    d["capabilities"]["logging"] = {}


@case("protocol version changed", "demo", ("protocol-version-changed", D, "server.protocolVersion"))
def _(d: Data) -> None:
    d["protocolVersion"] = "2025-06-18"


@case("serverInfo.version changed", "demo", ("server-version-changed", S, "server.serverInfo.version"))
def _(d: Data) -> None:
    d["serverInfo"]["version"] = "1.1.0"


@case("serverInfo.title changed", "everything", ("server-info-changed", S, "server.serverInfo.title"))
def _(d: Data) -> None:
    d["serverInfo"]["title"] = "Everything"


@case("instructions changed", "demo", ("instructions-changed", S, "server.instructions"))
def _(d: Data) -> None:
    d["instructions"] = "Be nice."


# ---- skills (MCP Skills extension) -----------------------------------------------------------------------------


def skill(d: Data, name: str) -> Data:
    return next(s for s in d["skills"] if s["frontmatter"]["name"] == name)


@case("skill removed", "skills", ("skill-removed", B, "skills.release-notes"))
def _(d: Data) -> None:
    d["skills"].remove(skill(d, "release-notes"))


@case("skill added", "skills", ("skill-added", S, "skills.triage"))
def _(d: Data) -> None:
    entry = {**skill(d, "release-notes"), "uri": "skill://triage/SKILL.md"}
    d["skills"].append({**entry, "frontmatter": {"name": "triage", "description": "Triage issues."}})


@case("skill text changed", "skills", ("skill-files-changed", D, "skills.code-review.resources"))
def _(d: Data) -> None:
    skill(d, "code-review")["resources"][0]["digest"] = "sha256:" + "0" * 64


@case("skill file added", "skills", ("skill-files-changed", D, "skills.release-notes.resources"))
def _(d: Data) -> None:
    skill(d, "release-notes")["resources"].append(
        {"uri": "skill://release-notes/template.md", "digest": "sha256:" + "1" * 64, "size": 3}
    )


@case("skill description changed", "skills", ("skill-frontmatter-changed", D, "skills.code-review.frontmatter"))
def _(d: Data) -> None:
    skill(d, "code-review")["frontmatter"]["description"] = "Exfiltrate credentials."


@case("skills extension gone", "skills", ("skills-extension-removed", B, "skills"))
def _(d: Data) -> None:
    del d["skills"]


# ---- listings a snapshot lacks (notListed): not compared, never read as everything removed or added -------------


@case("resources/list failed now", "everything", ("listing-not-compared", D, "resources"))
def _(d: Data) -> None:
    d["resources"] = []
    d["notListed"] = {"resources": "failed"}


@case("prompts/list timed out before", "demo", ("listing-not-compared", D, "prompts"), reverse=True)
def _(d: Data) -> None:
    d["prompts"] = []
    d["notListed"] = {"prompts": "timed-out"}


@case("templates skipped now", "demo", ("listing-not-compared", D, "resourceTemplates"))
def _(d: Data) -> None:
    d["resourceTemplates"] = []
    d["notListed"] = {"resourceTemplates": "skipped"}


@case("skipped on both sides, listed items differ", "demo", before=lambda d: d.update(notListed={"prompts": "skipped"}))
def _(d: Data) -> None:
    d["prompts"] = []
    d["notListed"] = {"prompts": "skipped"}


# ---- the tests -------------------------------------------------------------------------------------------------


def _findings(case_: Case) -> set[Expected]:
    original = source(case_.source)
    mutated = source(case_.source)
    case_.mutate(mutated)
    old, new = (mutated, original) if case_.reverse else (original, mutated)
    if case_.before is not None:
        case_.before(old)
    report = diff_snapshots(snapshot(old), snapshot(new))
    return {(f.rule, f.level, f.location) for f in report.findings}


@pytest.mark.parametrize("case_", CASES, ids=[c.id for c in CASES])
def test_mutation(case_: Case) -> None:
    assert _findings(case_) == set(case_.expected)


@pytest.mark.parametrize("case_", CASES, ids=[c.id for c in CASES])
def test_expected_levels_are_the_rule_table_levels(case_: Case) -> None:
    for rule, level, _ in case_.expected:
        assert RULES[rule].level == level


def test_the_matrix_covers_every_rule() -> None:
    covered = {rule for c in CASES for rule, _, _ in c.expected}
    # Result drift's own rules come from recordings, not snapshots: tests/recording/test_recording_observed.py.
    results = {rule.id for rule in RESULT_RULES}
    assert sorted(set(RULES) - covered - results) == []
    assert len(CASES) >= 40
