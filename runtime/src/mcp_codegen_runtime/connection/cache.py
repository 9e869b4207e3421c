"""The response cache (MCP 2026-07-28, SEP-2549): the SDK's coordinator made for one connection, and what it serves.

A 2026-07-28 server marks listings and resource reads with `ttlMs` and `cacheScope`; the SDK's
`mcp.Client` serves such a result from a `ResponseCacheStore` until it expires. The runtime sends its
requests itself (timeouts, progress, input-required rounds, reconnects), so it puts the SDK's own
coordinator, `mcp.client.caching.ClientResponseCache` (not exported; pinned in
tests/runtime/test_sdk_private_pins.py), beneath that send path with the SDK's rules: only a first
page or an unseeded first round is served or stored, a request carrying progress refreshes the entry,
and a `list_changed`/`updated` notification or change-stream event evicts what it makes stale.
Results of older servers carry no hints and are not cached unless `CacheConfig.default_ttl_ms` says so.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from .attempt import mcp_error_code
from .urls import redact_url

if TYPE_CHECKING:
    from mcp.client.caching import CacheConfig, ClientResponseCache
    from mcp.shared.subscriptions import ServerEvent

    from ..calls.options import CacheMode

__all__ = [
    "LISTINGS",
    "CacheSetting",
    "evict_for_event",
    "evict_for_message",
    "open_cache",
    "send_through",
]

#: What a connector's `cache=` takes: True (the SDK's default: in memory, following the server's
#: hints), False (off), or the SDK's `CacheConfig` (a shared store, a default TTL, ...).
CacheSetting = Union[bool, "CacheConfig"]

_R = TypeVar("_R")

#: The listings the cache serves (their first page only); a changed listing evicts its entry.
LISTINGS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")

_log = logging.getLogger(__name__)


def open_cache(
    setting: CacheSetting,
    *,
    target: str | None,
    negotiated_version: Callable[[], str | None],
) -> ClientResponseCache | None:
    """The coordinator for one connection, or None when `setting` turns the cache off.

    `target` is the server's URL when there is one (its identity in a shared store; only its hash is
    kept, with userinfo and secret-looking query values removed first). A stdio or in-process
    server gets a random identity, so a custom store needs `CacheConfig(target_id=...)` there.
    """
    if setting is False:
        return None
    import hashlib
    import uuid

    from mcp.client.caching import (
        CacheConfig,
        ClientResponseCache,
        InMemoryResponseCacheStore,
    )

    config = CacheConfig() if setting is True else setting
    target_id = config.target_id
    if target_id is None and target is not None:
        target_id = redact_url(target)
    if target_id is None:
        if config.store is not None:
            raise ValueError(
                "a custom cache store needs CacheConfig(target_id=...) for a server without a URL"
            )
        target_id = uuid.uuid4().hex
    return ClientResponseCache(
        store=(
            config.store if config.store is not None else InMemoryResponseCacheStore()
        ),
        partition=config.partition,
        arm_id=hashlib.sha256(target_id.encode()).hexdigest(),
        default_ttl_ms=config.default_ttl_ms,
        clock=config.clock,
        share_public=config.share_public,
        negotiated_version=negotiated_version,
    )


async def send_through(
    cache: ClientResponseCache,
    method: str,
    request: Any,
    mode: CacheMode,
    send: Callable[[], Awaitable[_R]],
) -> _R:
    """Send `request` through the cache: a fresh entry answers it, a fetched answer is stored.

    Only a listing's first page and a read's first round are served or stored; a later page is sent
    as it is (an expired cursor, `-32602`, evicts the listing, which changed), and so is a round
    carrying input responses or the server's request state (never cached). A read the server answers
    with `InputRequiredResult` is not stored either.
    """
    key = _key(method, request)
    if key is None or mode == "bypass":
        if key is None and _is_continuation(method, request):
            try:
                return await send()
            except Exception as error:
                # INVALID_PARAMS: the cursor expired, so the listing changed.
                if mcp_error_code(error) == -32602:
                    await cache.evict_method(method)
                raise
        return await send()
    if mode == "use" and (hit := await cache.read(method, key)) is not None:
        return cast("_R", hit)
    generation = cache.capture(method, key)
    result = await send()
    if getattr(result, "result_type", None) == "input_required":
        # Not storable; a refresh has superseded the warm entry all the same.
        if mode == "refresh":
            await cache.evict_key(method, key)
    else:
        await cache.write(method, key, cast(Any, result), generation, mode)
    return result


def _key(method: str, request: Any) -> str | None:
    """The key's parameter part: the URI of a read, "" for a listing's first page, else None."""
    params = request.params
    if method == "resources/read":
        seeded = params.input_responses is not None or params.request_state is not None
        return None if seeded else str(params.uri)
    if method in LISTINGS and (params is None or params.cursor is None):
        return ""
    return None


def _is_continuation(method: str, request: Any) -> bool:
    return (
        method in LISTINGS
        and request.params is not None
        and request.params.cursor is not None
    )


async def evict_for_message(cache: ClientResponseCache, message: object) -> None:
    """Evict what a server notification makes stale (a `list_changed`, a `resources/updated`)."""
    from mcp_types import ServerNotification

    if isinstance(message, ServerNotification):
        await _evict(cache, message)


async def evict_for_event(cache: ClientResponseCache, event: ServerEvent) -> None:
    """Evict what a change-stream event makes stale, before the consumer can read again."""
    from mcp.shared.subscriptions import event_to_notification

    await _evict(cache, event_to_notification(event, {}))


async def _evict(cache: ClientResponseCache, notification: Any) -> None:
    try:
        await cache.evict_for_notification(notification)
    except Exception:  # noqa: BLE001 - a store fault must not hold up the notification
        _log.exception(
            "the response cache could not evict after %s", type(notification).__name__
        )
