"""MCP Apps (extension `io.modelcontextprotocol/ui`): a tool's UI metadata and its UI resource, typed.

A tool's `_meta.ui` names its UI resource (`resourceUri`, a `ui://` resource) and who may call it
(`visibility`, `["model", "app"]` by default); the deprecated flat key `_meta["ui/resourceUri"]` is read
too. A host must not give a tool whose visibility lacks `"model"` to a model. The resource's own
`_meta.ui` carries its content security policy, permissions and `prefersBorder`. Server data: parsed
leniently, a malformed entry is left out rather than raised on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .results import ResourceResult

__all__ = [
    "DEFAULT_VISIBILITY",
    "UI_MIME_TYPE",
    "ToolUI",
    "UICsp",
    "UIPermissions",
    "UIResource",
    "tool_ui",
    "ui_resource",
]

#: The MIME type of an MCP Apps UI resource.
UI_MIME_TYPE = "text/html;profile=mcp-app"
#: Who may call a tool whose `_meta.ui` names no visibility.
DEFAULT_VISIBILITY: tuple[str, ...] = ("model", "app")
_FLAT_RESOURCE_URI = "ui/resourceUri"


@dataclass(frozen=True)
class ToolUI:
    """A tool's `_meta.ui`: the URI of its UI resource (if any) and who may call it."""

    resource_uri: str | None = None
    visibility: tuple[str, ...] = DEFAULT_VISIBILITY

    @property
    def model_visible(self) -> bool:
        """Whether a model may be given the tool (its visibility includes `"model"`)."""
        return "model" in self.visibility

    @property
    def app_only(self) -> bool:
        """Only the tool's app calls it: agents leave it out and refuse a model's call to it."""
        return not self.model_visible


def _mapping(value: object) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _strings(value: object) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(item for item in cast("list[object]", value) if isinstance(item, str))


def tool_ui(meta: object) -> ToolUI | None:
    """The UI metadata in a tool's listed `_meta`, or None when it has none (nested `ui` or flat key)."""
    listed = _mapping(meta)
    if listed is None:
        return None
    nested = _mapping(listed.get("ui"))
    uri: object = nested.get("resourceUri") if nested is not None else None
    if not isinstance(uri, str):
        uri = listed.get(_FLAT_RESOURCE_URI)
    visibility = _strings(nested.get("visibility")) if nested is not None else None
    if not isinstance(uri, str) and visibility is None:
        return None
    return ToolUI(
        resource_uri=uri if isinstance(uri, str) else None,
        visibility=DEFAULT_VISIBILITY if visibility is None else visibility,
    )


@dataclass(frozen=True)
class UICsp:
    """The UI's content security policy (`_meta.ui.csp`): the origins it may reach, by directive."""

    #: Origins for fetch/XHR/WebSocket (`connect-src`).
    connect_domains: tuple[str, ...] = ()
    #: Origins for scripts, images, styles and fonts.
    resource_domains: tuple[str, ...] = ()
    #: Origins of nested iframes (`frame-src`).
    frame_domains: tuple[str, ...] = ()
    #: Allowed document base URIs (`base-uri`).
    base_uri_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class UIPermissions:
    """The browser permissions the UI asks for (`_meta.ui.permissions`)."""

    camera: bool = False
    microphone: bool = False
    geolocation: bool = False
    clipboard_write: bool = False


@dataclass(frozen=True)
class UIResource:
    """A tool's UI resource as read: its HTML, MIME type and the sandbox metadata of its `_meta.ui`."""

    uri: str
    html: str
    mime_type: str | None
    csp: UICsp
    permissions: UIPermissions
    #: Whether the UI asks the host for a visible border (None: it says nothing).
    prefers_border: bool | None
    #: The dedicated origin the UI asks to be served from, if any.
    domain: str | None
    #: The resource's `_meta.ui` exactly as sent (keys this type does not name included).
    meta: Mapping[str, Any]
    #: The whole `resources/read` result.
    result: ResourceResult


def _resource_meta(result: ResourceResult) -> Mapping[str, Any]:
    """`_meta.ui` of the HTML content item, else of the read result itself."""
    for item in result.contents:
        ui = _mapping((item.meta or {}).get("ui"))
        if ui is not None:
            return ui
    return _mapping((result.meta or {}).get("ui")) or {}


def ui_resource(uri: str, result: ResourceResult) -> UIResource:
    """The typed UI resource of a `resources/read` of `uri`."""
    text_items = [item for item in result.contents if hasattr(item, "text")]
    chosen = next((item for item in text_items if item.mime_type == UI_MIME_TYPE), None)
    chosen = chosen or (text_items[0] if text_items else None)
    meta = _resource_meta(result)
    csp = _mapping(meta.get("csp")) or {}
    permissions = _mapping(meta.get("permissions")) or {}
    border = meta.get("prefersBorder")
    domain = meta.get("domain")
    return UIResource(
        uri=uri,
        html=str(getattr(chosen, "text", "")),
        mime_type=chosen.mime_type if chosen is not None else None,
        csp=UICsp(
            connect_domains=_strings(csp.get("connectDomains")) or (),
            resource_domains=_strings(csp.get("resourceDomains")) or (),
            frame_domains=_strings(csp.get("frameDomains")) or (),
            base_uri_domains=_strings(csp.get("baseUriDomains")) or (),
        ),
        permissions=UIPermissions(
            camera="camera" in permissions,
            microphone="microphone" in permissions,
            geolocation="geolocation" in permissions,
            clipboard_write="clipboardWrite" in permissions,
        ),
        prefers_border=border if isinstance(border, bool) else None,
        domain=domain if isinstance(domain, str) else None,
        meta=meta,
        result=result,
    )
