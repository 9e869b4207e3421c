"""Everything but tools: listings, resources, prompts, subscriptions, roots, log level and the drift check."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import (
    TYPE_CHECKING,
    Any,
    TypeVar,
)

from ..calls.errors import (
    NoUIError,
    ServerRequestError,
    SubscriptionLostError,
    UnsupportedByServerError,
)
from ..calls.results import PromptResult, ResourceResult
from ..connection.cache import evict_for_event
from ..server_requests import ListChanged
from .core import ClientCore, lazy_mcp_types
from .namespaces import prompt_arguments, template_uri

if TYPE_CHECKING:
    import mcp_types
    from mcp.shared.subscriptions import ServerEvent
    from pydantic import BaseModel

    from ..calls.drift import DriftSummary
    from ..calls.specs import PromptSpec, ResourceSpec, TemplateSpec, ToolSpec
    from ..calls.ui import UIResource
    from ..server_requests import (
        ChangeHandler,
        ChangeKind,
        LogLevel,
        RootLike,
    )


_PageT = TypeVar("_PageT", bound="BaseModel")

_log = logging.getLogger(__name__)


class ServerFeatures(ClientCore):
    """Everything but tools: listings, resources, prompts, subscriptions, roots, log level and the drift check."""

    __slots__ = ()

    async def set_roots(self, roots: Sequence[RootLike]) -> None:
        """Replace the roots offered to the server and notify it (`notifications/roots/list_changed`).

        Paths become absolute `file://` URIs. Needs a client connected with `roots=` (an empty
        list offers roots without any yet); otherwise raises RuntimeError.
        """
        requests = self._server_requests
        if requests is None:
            raise RuntimeError(
                "this client does not offer roots; connect with roots=[...] (may be empty)"
            )
        if self._closed_reason is not None:
            await self._reopen(None)
        try:
            await requests.set_roots(self._session, roots)
        except RuntimeError:
            raise
        except Exception as error:  # noqa: BLE001 - translated and re-raised
            self._after_failure(error, method="notifications/roots/list_changed")

    @property
    def roots(self) -> tuple[str, ...] | None:
        """The URIs of the roots offered to the server, or None when roots are not offered."""
        requests = self._server_requests
        offered = requests.roots if requests is not None else None
        return None if offered is None else tuple(root.uri for root in offered)

    async def set_log_level(
        self, level: LogLevel, *, timeout: float | None = None
    ) -> None:
        """Ask the server to send log messages at `level` and above (`logging/setLevel`).

        The messages reach the `on_log=` handler. Logging is deprecated in MCP 2026-07-28 but
        still what servers speaking 2025-11-25 and older use.
        """
        types = lazy_mcp_types()
        request = types.SetLevelRequest(params=types.SetLevelRequestParams(level=level))
        await self._request(
            request, types.EmptyResult, method="logging/setLevel", timeout=timeout
        )

    async def check_drift(self, *, strict: bool = False) -> DriftSummary | None:
        """Compare the server's tools now with the snapshot this client was generated from: what connecting
        does unless `drift_check=False` (and what a `from_session` client never does by itself).

        Logs one warning naming what drifted, or raises `SchemaDriftError` when `strict`. None when the
        listing could not be read (or the package carries no hashes)."""
        expected = type(self)._tool_hashes
        if expected is None:
            return None
        from ..calls.drift import check_drift

        return await check_drift(
            self._session,
            expected,
            strict=strict,
            explain=self._translated,
            on_changed=self._check_against_live_schemas,
        )

    @asynccontextmanager
    async def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        resource_uris: Sequence[str] = (),
    ) -> AsyncGenerator[AsyncIterator[ServerEvent], None]:
        """A change stream (MCP 2026-07-28 `subscriptions/listen`): `async with client.listen(tools=True) as
        events: async for event in events: ...`.

        Each event is one of the SDK's `ToolsListChanged`, `PromptsListChanged`, `ResourcesListChanged` or
        `ResourceUpdated(uri)` (`mcp.shared.subscriptions`), for what was asked: `tools`, `prompts` and
        `resources` list changes, and updates of the resources at `resource_uris`. Entering waits for the
        server's acknowledgment; leaving ends the stream; a stream the server ends gracefully ends the loop.
        There is no replay: after `SubscriptionLostError` (the stream dropped), listen again and list again.
        Needs a 2026-07-28 connection (a package generated from such a server starts with one): otherwise
        `UnsupportedByServerError`; older servers send `on_change=` notifications instead.
        """
        from mcp.client.subscriptions import (
            ListenNotSupportedError,
            SubscriptionLost,
            listen,
        )

        if self._closed_reason is not None:
            await self._reopen(None)
        cache = self._response_cache

        async def evict(event: ServerEvent) -> None:
            if cache is not None:  # before the consumer sees the event and reads again
                await evict_for_event(cache, event)

        stream = listen(
            self._session,
            tools_list_changed=tools,
            prompts_list_changed=prompts,
            resources_list_changed=resources,
            resource_subscriptions=tuple(resource_uris),
            on_event=evict,
        )
        async with AsyncExitStack() as stack:
            try:
                subscription = await stack.enter_async_context(stream)
            except ListenNotSupportedError:
                raise UnsupportedByServerError(
                    "listen() needs MCP 2026-07-28; the server negotiated "
                    f"{self._session.protocol_version}"
                ) from None
            except SubscriptionLost as lost:
                raise SubscriptionLostError(str(lost)) from None
            except Exception as error:  # noqa: BLE001 - translated and re-raised
                self._after_failure(error, method="subscriptions/listen")

            async def events() -> AsyncIterator[ServerEvent]:
                try:
                    async for event in subscription:
                        yield event
                except SubscriptionLost as lost:
                    raise SubscriptionLostError(str(lost)) from None

            yield events()

    async def subscribe_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> None:
        """Ask for `notifications/resources/updated` about `uri` (they reach `on_resource_updated=`).

        Raises `ServerRequestError` when the server does not offer subscriptions."""
        self._require_subscriptions()
        types = lazy_mcp_types()
        request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        await self._request(
            request,
            types.EmptyResult,
            method="resources/subscribe",
            timeout=timeout,
            uri=uri,
        )

    async def unsubscribe_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> None:
        """Stop the updates `subscribe_resource(uri)` asked for."""
        self._require_subscriptions()
        types = lazy_mcp_types()
        request = types.UnsubscribeRequest(
            params=types.UnsubscribeRequestParams(uri=uri)
        )
        await self._request(
            request,
            types.EmptyResult,
            method="resources/unsubscribe",
            timeout=timeout,
            uri=uri,
        )

    def _require_subscriptions(self) -> None:
        capabilities = self._session.server_capabilities
        resources = capabilities.resources if capabilities is not None else None
        if resources is None or not resources.subscribe:
            raise ServerRequestError(
                -32601,
                "the server does not offer resource subscriptions (capabilities.resources.subscribe)",
                None,
                method="resources/subscribe",
            )

    async def _relist(self, kind: ChangeKind, hook: ChangeHandler) -> None:
        """After `notifications/<kind>/list_changed`: list again, check tools for drift, call `hook`."""
        drift: DriftSummary | None = None
        try:
            items: tuple[Any, ...]
            if kind == "tools":
                items = tuple(await self.list_tools())
                drift = await self.check_drift(strict=False)
            elif kind == "resources":
                items = (
                    *await self.list_resources(),
                    *await self.list_resource_templates(),
                )
            else:
                items = tuple(await self.list_prompts())
            result = hook(ListChanged(kind, items, drift))
            if inspect.isawaitable(result):
                await result
        except Exception:  # noqa: BLE001 - a failing hook must not end the connection
            _log.exception("the on_change handler failed after %s/list_changed", kind)

    async def list_tools(self) -> list[mcp_types.Tool]:
        """Every tool the server lists now (all pages)."""
        types = lazy_mcp_types()
        return await self._list_all(
            "tools/list",
            types.ListToolsRequest,
            types.ListToolsResult,
            lambda page: page.tools,
        )

    async def list_resources(self) -> list[mcp_types.Resource]:
        """Every resource the server lists now (all pages of `resources/list`), as the SDK's models."""
        types = lazy_mcp_types()
        return await self._list_all(
            "resources/list",
            types.ListResourcesRequest,
            types.ListResourcesResult,
            lambda page: page.resources,
        )

    async def list_resource_templates(self) -> list[mcp_types.ResourceTemplate]:
        """Every resource template the server lists now (all pages of `resources/templates/list`)."""
        types = lazy_mcp_types()
        return await self._list_all(
            "resources/templates/list",
            types.ListResourceTemplatesRequest,
            types.ListResourceTemplatesResult,
            lambda page: page.resource_templates,
        )

    async def list_prompts(self) -> list[mcp_types.Prompt]:
        """Every prompt the server lists now (all pages of `prompts/list`), as the SDK's models."""
        types = lazy_mcp_types()
        return await self._list_all(
            "prompts/list",
            types.ListPromptsRequest,
            types.ListPromptsResult,
            lambda page: page.prompts,
        )

    async def read_resource(
        self, uri: str, *, timeout: float | None = None
    ) -> ResourceResult:
        """Read a resource by URI; a server error becomes a ResourceError."""
        types = lazy_mcp_types()
        request = types.ReadResourceRequest(
            params=types.ReadResourceRequestParams(uri=uri)
        )
        raw = await self._request(
            request,
            types.ReadResourceResult,
            method="resources/read",
            timeout=timeout,
            uri=uri,
        )
        return ResourceResult(raw)

    async def read_ui(
        self, tool: str | ToolSpec[Any, Any], *, timeout: float | None = None
    ) -> UIResource:
        """Read a tool's MCP Apps UI resource (`_meta.ui.resourceUri`, a `ui://` resource).

        `tool` is a Python or wire name, or a spec (`TOOLS["display_pdf"]`). Returns its HTML, MIME
        type (`text/html;profile=mcp-app`) and the resource's `_meta.ui` typed: `csp`
        (`connect_domains`, `resource_domains`, ...), `permissions`, `prefers_border`, `domain`.
        Raises NoUIError when the tool has no UI, UnknownToolError for an unknown name and
        ResourceError when the server refuses the read.
        """
        from ..calls.ui import ui_resource
        from .tool_calls import find_tool_spec

        spec = tool if not isinstance(tool, str) else find_tool_spec(self._tools, tool)
        uri = spec.ui.resource_uri if spec.ui is not None else None
        if uri is None:
            raise NoUIError(spec.name)
        return ui_resource(uri, await self.read_resource(uri, timeout=timeout))

    async def _read_template(
        self,
        spec: TemplateSpec,
        values: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> ResourceResult:
        """Expand the template with `values` (Python or wire variable names) and read the resource."""
        return await self.read_resource(template_uri(spec, values), timeout=timeout)

    async def _read(
        self, spec: ResourceSpec, *, timeout: float | None = None
    ) -> ResourceResult:
        return await self.read_resource(spec.uri, timeout=timeout)

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        """Render a prompt; a server error (unknown prompt, missing argument) becomes a PromptError."""
        types = lazy_mcp_types()
        request = types.GetPromptRequest(
            params=types.GetPromptRequestParams(
                name=name, arguments=dict(arguments) if arguments else None
            )
        )
        raw = await self._request(
            request,
            types.GetPromptResult,
            method="prompts/get",
            timeout=timeout,
            prompt=name,
        )
        return PromptResult(raw)

    async def _get_prompt(
        self,
        spec: PromptSpec,
        values: Mapping[str, object],
        *,
        timeout: float | None = None,
    ) -> PromptResult:
        """Render `spec` with `values` keyed by Python (or wire) argument names; NOT_SENT values are left out."""
        return await self.get_prompt(
            spec.name, prompt_arguments(spec, values), timeout=timeout
        )
