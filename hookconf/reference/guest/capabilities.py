"""Host capabilities a guest reaches through the bridge: ``log``, ``storage``, ``http``.

Each capability is plain host code behind a small interface; none touches the network or
the real filesystem.  ``http.request`` goes to an injected :class:`Transport` (a fake in
tests) and every hop — the first request and each redirect — is checked by an injected
request check, by default the §7 matcher's ``hookconf.reference.permissions.matcher.check_request`` (H5).
A guest-supplied ``proxy`` is refused with ``plugin.hook.permission_denied`` (§7).

A capability fails by raising :class:`CapabilityError` with a stable code; the bridge
turns it into a rejected guest promise.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hookconf import boundedjson
from hookconf.reference.errors import ErrorCode
from hookconf.reference.schemas import validate

__all__ = [
    "PENDING",
    "CapabilityError",
    "HttpCapability",
    "HttpRequest",
    "HttpResponse",
    "LogRecord",
    "MemoryStorage",
    "RequestCheck",
    "Transport",
    "default_request_check",
]

MAX_REDIRECTS = 20
HTTP_METHODS = frozenset({"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"})
MAX_BODY_BYTES = 1024 * 1024
STORAGE_VERSION_CONFLICT = "plugin.storage.version_conflict"


class CapabilityError(Exception):
    """A refused or failed capability call.

    Attributes:
        code: a §13 code, or a capability-specific stable code
            (``plugin.storage.version_conflict``).
        message: bounded text for the guest; never another plugin's details.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = str(code)
        self.message = message[:1000]


class _Pending:
    """Sentinel: the transport has not answered (models a hung request)."""

    def __repr__(self) -> str:
        return "PENDING"


PENDING = _Pending()


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One guest ``log`` call: level, bounded message, JSON fields, and its entry id."""

    plugin_id: str
    entry_id: str
    level: str
    message: str
    fields: Any = None


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One hop the transport must perform (never a redirect follow: the capability does)."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: str | None = None


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A transport's answer; ``headers`` keep order; a 3xx with ``location`` redirects."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""
    location: str | None = None


class Transport(Protocol):
    """Performs one HTTP hop; returns a response or :data:`PENDING`."""

    def __call__(self, request: HttpRequest) -> HttpResponse | _Pending: ...


#: ``check(patterns, hops, proxy) -> decision`` with ``.allowed``, ``.code``, ``.refused_hop``.
RequestCheck = Callable[[Sequence[str], Sequence[str], str | None], Any]


def default_request_check(patterns: Sequence[str], hops: Sequence[str],
                          proxy: str | None) -> Any:
    """The §7 matcher (``hookconf.reference.permissions.matcher``), imported lazily."""
    from hookconf.reference import permissions

    return permissions.check_request(_pattern_set(tuple(patterns)), list(hops), proxy)


@functools.lru_cache(maxsize=256)
def _pattern_set(patterns: tuple[str, ...]) -> Any:
    """Host permissions are parsed once per distinct pattern list (§7)."""
    from hookconf.reference import permissions

    return permissions.PatternSet.from_strings(list(patterns))


class MemoryStorage:
    """Versioned per-plugin key/value storage (``storage.*``), in memory.

    Versions start at 0 for an absent key and grow by one on every write; ``delete``
    resets the key.  Keys are ≤ 128 UTF-8 bytes and values JSON ≤ 256 KiB (the §9.1
    metadata bounds, reused).
    """

    def __init__(self) -> None:
        self._data: dict[str, dict[str, tuple[Any, int]]] = {}

    def call(self, plugin_id: str, method: str, args: list[Any]) -> Any:
        """Run ``storage.<method>(*args)`` for ``plugin_id``; raises :class:`CapabilityError`."""
        space = self._data.setdefault(plugin_id, {})
        if method == "keys":
            prefix = args[0] if args else ""
            if not isinstance(prefix, str):
                raise CapabilityError(ErrorCode.OUTPUT_INVALID, "keys prefix must be a string")
            return sorted(k for k in space if k.startswith(prefix))
        key = args[0] if args else None
        if not validate("MetadataKeyV1", key, direction="output").valid:
            raise CapabilityError(ErrorCode.OUTPUT_INVALID, "invalid storage key")
        value, version = space.get(key, (None, 0))
        if method == "get":
            return {"value": value, "version": version}
        if method == "delete":
            space.pop(key, None)
            return None
        if method == "set" and len(args) == 2:
            return {"version": self._write(space, key, args[1], version)}
        if method == "compareAndSet" and len(args) == 3:
            if args[1] != version:
                raise CapabilityError(STORAGE_VERSION_CONFLICT,
                                      f"expected version {args[1]!r}, current {version}")
            return {"value": args[2], "version": self._write(space, key, args[2], version)}
        raise CapabilityError(ErrorCode.OUTPUT_INVALID, f"unknown storage call {method!r}")

    @staticmethod
    def _write(space: dict, key: str, value: Any, version: int) -> int:
        if not validate("MetadataValueV1", value, direction="output").valid:
            raise CapabilityError(ErrorCode.OUTPUT_INVALID, "invalid storage value")
        space[key] = (value, version + 1)
        return version + 1


@dataclass
class HttpCapability:
    """``http.request`` through an injected transport, checked hop by hop (§7, H5).

    Attributes:
        transport: performs single hops.
        check: the request check; defaults to the §7 matcher.
        requests: every hop actually sent (for tests and audit).
    """

    transport: Transport
    check: RequestCheck = default_request_check
    requests: list[HttpRequest] = field(default_factory=list)

    def request(self, host_permissions: Sequence[str], options: Any) -> Any:
        """Perform ``http.request(options)``; returns the SDK response shape or PENDING.

        Raises:
            CapabilityError: ``plugin.hook.permission_denied`` for a guest proxy,
                ``plugin.http.host_not_permitted`` for a refused hop (nothing is sent to
                that hop), ``plugin.hook.output_invalid`` for malformed options.
        """
        if not isinstance(options, dict) or not isinstance(options.get("url"), str):
            raise CapabilityError(ErrorCode.OUTPUT_INVALID, "http.request needs a url")
        method = options.get("method", "GET")
        if method not in HTTP_METHODS:
            raise CapabilityError(ErrorCode.OUTPUT_INVALID, "unsupported HTTP method")
        raw_headers = options.get("headers") or []
        if not validate("HeaderListV1", raw_headers, direction="output").valid:
            raise CapabilityError(ErrorCode.OUTPUT_INVALID, "invalid request headers")
        proxy = options.get("proxy")
        headers = tuple((h["name"], h["value"]) for h in raw_headers)
        body = options.get("body")
        if isinstance(body, dict):
            body = json.dumps(body.get("data"))
        hops = [options["url"]]
        while True:
            decision = self.check(host_permissions, hops, proxy)
            if not decision.allowed:
                raise CapabilityError(decision.code, f"request refused at hop {decision.refused_hop}")
            url = _resolve(hops)
            request = HttpRequest(str(method), url, headers, body if isinstance(body, str) else None)
            self.requests.append(request)
            response = self.transport(request)
            if response is PENDING:
                return PENDING
            if 300 <= response.status < 400 and response.location is not None:
                if options.get("redirect", "follow") != "follow" or len(hops) > MAX_REDIRECTS:
                    raise CapabilityError(ErrorCode.HOST_NOT_PERMITTED, "redirect not followed")
                hops.append(response.location)
                continue
            return _shape(response, url, redirected=len(hops) > 1,
                          response_type=options.get("responseType", "text"))


def _resolve(hops: Sequence[str]) -> str:
    import ada_url

    url = hops[0]
    for hop in hops[1:]:
        url = ada_url.URL(hop, url).href
    return ada_url.URL(url).href


def _shape(response: HttpResponse, url: str, *, redirected: bool, response_type: str) -> Any:
    body: Any = response.body
    if len(body.encode("utf-8")) > MAX_BODY_BYTES:
        raise CapabilityError(ErrorCode.OUTPUT_INVALID, "response body too large")
    if response_type == "json":
        try:
            body = boundedjson.loads(body)  # a hostile server's body: bounded depth (§12)
        except boundedjson.JsonBoundsError as error:
            raise CapabilityError(ErrorCode.OUTPUT_INVALID, f"response is not usable JSON: {error.reason}") from None
    elif response_type == "bytes":
        body = list(body.encode("utf-8"))
    return {"status": response.status,
            "headers": [{"name": n, "value": v} for n, v in response.headers],
            "body": body, "finalUrl": url, "redirected": redirected}
