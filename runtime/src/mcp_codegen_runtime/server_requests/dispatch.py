"""The handlers one client answers server requests with, wired into the SDK session as its callbacks.

`ServerRequests` turns the typed handlers of `messages` into the SDK's callbacks, and only
the kinds given are advertised to the server at initialize. A plain-function handler runs on
the client's event loop thread (for the blocking `Client`, its background thread), so it
must not block for long: write `async def` handlers for slow work, or use
`anyio.to_thread.run_sync` inside them.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .elicitation import elicited_content
from .messages import (
    Completion,
    ElicitationHandler,
    ElicitationRequest,
    LogHandler,
    LogMessage,
    Root,
    RootLike,
    SamplingHandler,
    SamplingMessage,
    SamplingRequest,
    SamplingTool,
    ToolUse,
    as_roots,
)

if TYPE_CHECKING:
    import mcp_types
    from mcp import ClientSession

__all__ = ["ServerRequests"]

_log = logging.getLogger(__name__)


async def _resolved(value: object) -> object:
    if inspect.isawaitable(value):
        return await value
    return value


class ServerRequests:
    """The handlers one client answers server requests with, as the SDK's client callbacks.

    `sdk_options()` gives the keyword arguments for `mcp.Client` (only for the handlers given,
    so only those capabilities are advertised): use it with `from_session()` on a session you
    build yourself.
    """

    def __init__(
        self,
        *,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        roots: Sequence[RootLike] | None = None,
        on_log: LogHandler | None = None,
    ) -> None:
        self.elicitation = elicitation
        self.sampling = sampling
        self.on_log = on_log
        self._roots: tuple[Root, ...] | None = (
            None if roots is None else as_roots(roots)
        )

    @property
    def roots(self) -> tuple[Root, ...] | None:
        """The roots answered to `roots/list`, or None when roots are not offered."""
        return self._roots

    async def set_roots(
        self, session: ClientSession | None, roots: Sequence[RootLike]
    ) -> None:
        """Replace the roots and tell the server (`notifications/roots/list_changed`)."""
        if self._roots is None:
            raise RuntimeError(
                "this client does not offer roots; connect with roots=[...] (may be empty)"
            )
        self._roots = as_roots(roots)
        if session is not None:
            import mcp_types

            await session.send_notification(mcp_types.RootsListChangedNotification())

    def sdk_options(self) -> dict[str, Any]:
        """Keyword arguments for `mcp.Client` (or `ClientSession`) for the handlers given."""
        options: dict[str, Any] = {}
        if self.elicitation is not None:
            options["elicitation_callback"] = self._on_elicit
        if self.sampling is not None:
            import mcp_types

            options["sampling_callback"] = self._on_sample
            # The handler sees `request.tools` and may answer with tool uses.
            options["sampling_capabilities"] = mcp_types.SamplingCapability(
                tools=mcp_types.SamplingToolsCapability()
            )
        if self._roots is not None:
            options["list_roots_callback"] = self._on_list_roots
        if self.on_log is not None:
            options["logging_callback"] = self._on_log
        return options

    @staticmethod
    def _failure(kind: str, error: BaseException) -> mcp_types.ErrorData:
        import mcp_types

        # The handler's message may hold user data: it stays in this process's log.
        _log.warning("the %s handler failed: %s", kind, error, exc_info=error)
        return mcp_types.ErrorData(
            code=mcp_types.INTERNAL_ERROR, message=f"the client's {kind} handler failed"
        )

    async def _on_elicit(
        self, context: object, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        import mcp_types

        handler = self.elicitation
        assert handler is not None
        if isinstance(params, mcp_types.ElicitRequestURLParams):
            request = ElicitationRequest(params.message, {}, "url", params.url)
        else:
            schema = cast(Mapping[str, Any], params.requested_schema)
            request = ElicitationRequest(params.message, dict(schema))
        try:
            answer = await _resolved(handler(request))
        except Exception as error:  # noqa: BLE001 - reported to the server as an error
            return self._failure("elicitation", error)
        action: object = getattr(type(answer), "action", None)
        if action in ("decline", "cancel"):
            return mcp_types.ElicitResult.model_validate({"action": action})
        content: object = (
            getattr(answer, "content", None) if action == "accept" else answer
        )
        if not isinstance(content, Mapping):
            return self._failure(
                "elicitation",
                TypeError(
                    f"expected Accept, Decline, Cancel or a dict, got {answer!r}"
                ),
            )
        if request.mode == "url":
            return mcp_types.ElicitResult(action="accept")
        try:
            checked = elicited_content(
                request.requested_schema, cast(Mapping[str, object], content)
            )
        except ValueError as error:
            _log.warning("elicitation answer does not fit the schema: %s", error)
            return mcp_types.ErrorData(
                code=mcp_types.INVALID_PARAMS,
                message=f"the elicitation answer does not fit the requested schema: {error}",
            )
        return mcp_types.ElicitResult.model_validate(
            {"action": "accept", "content": checked}
        )

    async def _on_sample(
        self, context: object, params: mcp_types.CreateMessageRequestParams
    ) -> (
        mcp_types.CreateMessageResult
        | mcp_types.CreateMessageResultWithTools
        | mcp_types.ErrorData
    ):
        import mcp_types

        handler = self.sampling
        assert handler is not None
        messages: list[SamplingMessage] = []
        for message in params.messages:
            blocks = message.content_as_list
            texts = [b.text for b in blocks if isinstance(b, mcp_types.TextContent)]
            messages.append(
                SamplingMessage(
                    message.role,
                    "\n".join(texts),
                    tuple(
                        b.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for b in blocks
                    ),
                )
            )
        preferences = params.model_preferences
        hints = (
            tuple(h.name for h in preferences.hints or () if h.name)
            if preferences is not None
            else ()
        )
        request = SamplingRequest(
            messages=tuple(messages),
            max_tokens=params.max_tokens,
            system_prompt=params.system_prompt,
            temperature=params.temperature,
            stop_sequences=tuple(params.stop_sequences or ()),
            model_hints=hints,
            metadata=params.metadata,
            tools=tuple(
                SamplingTool(tool.name, tool.description, dict(tool.input_schema))
                for tool in params.tools or ()
            ),
            tool_choice=params.tool_choice.mode if params.tool_choice else None,
        )
        try:
            answer = await _resolved(handler(request))
        except Exception as error:  # noqa: BLE001 - reported to the server as an error
            return self._failure("sampling", error)
        if isinstance(answer, str):
            answer = Completion(answer)
        # Recognised by shape, so another generated package's `Completion` works too.
        text = getattr(answer, "text", None)
        model = getattr(answer, "model", None)
        stop_reason = getattr(answer, "stop_reason", None)
        if not isinstance(text, str) or not isinstance(model, str):
            return self._failure(
                "sampling", TypeError(f"expected str or Completion, got {answer!r}")
            )
        uses: tuple[ToolUse, ...] = getattr(answer, "tool_uses", ())
        if not uses:
            return mcp_types.CreateMessageResult.model_validate(
                {
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": model,
                    "stopReason": stop_reason,
                }
            )
        content: list[dict[str, object]] = (
            [{"type": "text", "text": text}] if text else []
        )
        for use in uses:
            block: dict[str, object] = {
                "type": "tool_use",
                "name": use.name,
                "id": use.id,
                "input": dict(use.arguments),
            }
            content.append(block)
        return mcp_types.CreateMessageResultWithTools.model_validate(
            {
                "role": "assistant",
                "content": content,
                "model": model,
                "stopReason": (
                    "toolUse" if stop_reason in (None, "endTurn") else stop_reason
                ),
            }
        )

    async def _on_list_roots(
        self, context: object
    ) -> mcp_types.ListRootsResult | mcp_types.ErrorData:
        import mcp_types

        roots = self._roots or ()
        return mcp_types.ListRootsResult.model_validate(
            {
                "roots": [
                    {"uri": r.uri} if r.name is None else {"uri": r.uri, "name": r.name}
                    for r in roots
                ]
            }
        )

    async def _on_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        handler = self.on_log
        assert handler is not None
        try:
            await _resolved(
                handler(LogMessage(params.level, params.logger, params.data))
            )
        except (
            Exception
        ) as error:  # noqa: BLE001 - a log handler must not end the session
            _log.warning("the log handler failed: %s", error, exc_info=error)
