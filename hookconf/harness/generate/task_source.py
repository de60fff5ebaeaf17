"""Generated §9.4 cases: the task-source policy on every URL a hook returns (H17), and the
source identity a ``beforeFinalize`` context may carry across the boundary (H4).

``task_source.fields``
    every hazard — credentials, a non-download scheme, an unparsable URL, one byte over the
    §9.1 URL limit, a loopback/private/link-local host for a remote operator — in every
    URL-carrying place a hook's result has: a lone URL, the only ``uris`` item, the first,
    a middle and the last of several; plus the ``uris`` count at 128 and 129 and the empty
    list; each under a different set of the plugin's ``hostPermissions`` (the runner adds
    none and ``<all_urls>``), since the answer must never depend on them.
``task_source.finalize_source``
    ``BeforeFinalizeContextV1`` (alone and inside ``hook.enter``) for http, bt, magnet and ftp
    tasks with each ``sourceUrl`` a host might be tempted to pass: the canonical
    ``urn:btih:``/``urn:motrix:bt:`` identity, the raw magnet URI with a tracker passkey,
    its bare query, a tracker URL, a torrent path, a wrong identity, credentials.

Expectations come from the hazard tables below, each row citing the sentence that decides it;
rows the spec leaves open (an empty userinfo, ftp/sftp/magnet as returned URLs, private hosts
for a local user, address ranges beyond RFC 1918/loopback/link-local) are advisory.
"""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template

__all__ = ["FINALIZE_SOURCES", "HAZARDS", "expand_fields", "expand_finalize_source"]

_REFUSED = {"admitted": False, "code": "plugin.hook.output_invalid"}
_ADMITTED = {"admitted": True}
_URL_BYTES = 16 * 1024
_URLS_PER_REQUEST = 128


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:10]


def _sized(prefix: str, fill: str, size: int) -> str:
    """``prefix`` then ``fill`` repeated to exactly ``size`` UTF-8 bytes (``fill`` 1 or 2 bytes,
    topped up with ``x``)."""
    body = prefix
    while len((body + fill).encode()) <= size:
        body += fill
    return body + "x" * (size - len(body.encode()))


_PRIVATE = "§9.4 remote-operator/private-network policy: a remote operator's task may not reach the private network"
_ADVISORY_LOCAL = ("§9.4 names the private-network policy for remote operators only; for a local user's "
                   "request the spec does not say (the reference admits)")
_ADVISORY_RANGE = ("§9.4 does not define the private network beyond its plain sense (RFC 1918, loopback, "
                   "link-local); the reference also refuses this host for a remote operator")
_ADVISORY_SCHEME = ("§9.4 requires a supported scheme but does not list them; the reference's download "
                    "engine takes http, https, ftp and sftp")

#: ``(name, url, operator, expected, grant, note, advisory)``: ``operator`` is ``None`` when the
#: answer is the same for a local user and a remote operator; ``grant`` is a host permission
#: that would cover the URL if host permissions counted (they must not).
HAZARDS: tuple[tuple[str, str, str | None, dict[str, Any], str, str, str], ...] = (
    ("public", "https://upload.wikimedia.org/wikipedia/commons/a/a9/Example.jpg", None, _ADMITTED,
     "*://commons.wikimedia.org/*", "§9.4: returned URLs need not match hostPermissions", ""),
    ("public-ip", "http://93.184.215.14/f.bin", "remote", _ADMITTED, "*://93.184.215.14/*",
     "§9.4: a public address is outside the private network", ""),
    ("at-url-limit", _sized("https://dl.example.org/", "a", _URL_BYTES), None, _ADMITTED,
     "*://dl.example.org/*", "§9.1: exactly 16 KiB is valid", ""),
    ("at-url-limit-utf8", _sized("https://dl.example.org/", "é", _URL_BYTES), None, _ADMITTED,
     "*://dl.example.org/*", "§9.1: limits count UTF-8 bytes, inclusive", ""),
    ("over-url-limit", _sized("https://dl.example.org/", "a", _URL_BYTES + 1), None, _REFUSED,
     "*://dl.example.org/*", "§9.1/§9.4 URL limits: one byte over 16 KiB", ""),
    ("over-url-limit-utf8", _sized("https://dl.example.org/", "é", _URL_BYTES + 1), None, _REFUSED,
     "*://dl.example.org/*", "§9.1/§9.4 URL limits in UTF-8 bytes", ""),
    ("credentials", "https://user:pass@dl.example.org/f.bin", None, _REFUSED, "<all_urls>",
     "§9.4: credentials are rejected", ""),
    ("username", "https://user@dl.example.org/f.bin", None, _REFUSED, "*://dl.example.org/*",
     "§9.4: credentials are rejected", ""),
    ("password", "https://:token@dl.example.org/f.bin", None, _REFUSED, "*://dl.example.org/*",
     "§9.4: credentials are rejected", ""),
    ("encoded-userinfo", "http://user%3Apw@dl.example.org/f.bin", None, _REFUSED, "*://dl.example.org/*",
     "§9.4: credentials are rejected", ""),
    ("file", "file:///etc/passwd", None, _REFUSED, "<all_urls>",
     "§9.4: a supported task-source scheme; file is none", ""),
    ("javascript", "javascript:alert(1)", None, _REFUSED, "<all_urls>",
     "§9.4: a supported task-source scheme; javascript is none", ""),
    ("data", "data:application/octet-stream,abc", None, _REFUSED, "<all_urls>",
     "§9.4: a supported task-source scheme; data is none", ""),
    ("unparsable", "https://exa mple.org/f.bin", None, _REFUSED, "<all_urls>",
     "§9.4: a URL that does not parse has no supported scheme", ""),
    ("port-range", "https://dl.example.org:70000/f.bin", None, _REFUSED, "*://dl.example.org/*",
     "§9.4: a URL that does not parse has no supported scheme", ""),
    ("loopback", "http://127.0.0.1:6800/jsonrpc", "remote", _REFUSED, "*://127.0.0.1/*", _PRIVATE, ""),
    ("loopback-hex", "http://0x7f.1/f.bin", "remote", _REFUSED, "*://127.0.0.1/*",
     _PRIVATE + " (0x7f.1 is 127.0.0.1)", ""),
    ("loopback-v6", "http://[::1]/f.bin", "remote", _REFUSED, "*://[::1]/*", _PRIVATE, ""),
    ("private-10", "http://10.0.0.5/f.bin", "remote", _REFUSED, "*://10.0.0.5/*", _PRIVATE, ""),
    ("private-172", "http://172.31.255.254/f.bin", "remote", _REFUSED, "*://*/*", _PRIVATE, ""),
    ("private-192", "http://3232235786/f.bin", "remote", _REFUSED, "*://192.168.1.10/*",
     _PRIVATE + " (3232235786 is 192.168.1.10)", ""),
    ("link-local", "http://169.254.169.254/latest/meta-data/", "remote", _REFUSED,
     "*://169.254.169.254/*", _PRIVATE, ""),
    ("link-local-v6", "http://[fe80::1]/f.bin", "remote", _REFUSED, "*://[fe80::1]/*", _PRIVATE, ""),
    ("beside-172", "http://172.32.0.1/f.bin", "remote", _ADMITTED, "*://172.32.0.1/*",
     "§9.4: 172.32.0.1 is outside 172.16.0.0/12", ""),
    ("beside-link-local", "http://169.253.255.255/f.bin", "remote", _ADMITTED, "<all_urls>",
     "§9.4: 169.253.255.255 is outside 169.254.0.0/16", ""),
    ("private-local", "http://192.168.1.10/f.bin", "local", _ADMITTED, "*://192.168.1.10/*", "", _ADVISORY_LOCAL),
    ("link-local-local", "http://169.254.10.1/f.bin", "local", _ADMITTED, "<all_urls>", "", _ADVISORY_LOCAL),
    ("localhost", "http://localhost:8080/f.bin", "remote", _REFUSED, "*://localhost/*", "", _ADVISORY_RANGE),
    ("unique-local-v6", "http://[fd00::1]/f.bin", "remote", _REFUSED, "*://[fd00::1]/*", "", _ADVISORY_RANGE),
    ("shared-address", "http://100.64.0.1/f.bin", "remote", _REFUSED, "*://100.64.0.1/*", "", _ADVISORY_RANGE),
    ("mapped-v4", "http://[::ffff:10.0.0.5]/f.bin", "remote", _REFUSED, "<all_urls>", "", _ADVISORY_RANGE),
    ("ftp", "ftp://dl.example.org/pub/f.iso", None, _ADMITTED, "<all_urls>", "", _ADVISORY_SCHEME),
    ("magnet", "magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a", None, _REFUSED,
     "<all_urls>", "", _ADVISORY_SCHEME),
    ("empty-userinfo", "http://@dl.example.org/f.bin", None, _ADMITTED, "*://dl.example.org/*", "",
     "§9.4 refuses credentials; the URL Standard drops an empty userinfo, so whether '@' alone is a "
     "credential the spec does not say (the reference admits)"),
)

_FILLER = ("https://mirror-a.example.org/f.bin", "https://mirror-b.example.net/f.bin",
           "http://cdn.example.com/pool/f.bin")

#: Where a returned URL sits: ``(name, builder)``; the builder places ``url`` among fillers.
FIELDS = (
    ("url", lambda url: {"url": url}),
    ("uris-only", lambda url: {"patch": {"uris": [url]}}),
    ("uris-first", lambda url: {"patch": {"uris": [url, _FILLER[0], _FILLER[1]]}}),
    ("uris-middle", lambda url: {"patch": {"uris": [_FILLER[0], url, _FILLER[2]]}}),
    ("uris-last", lambda url: {"patch": {"uris": [_FILLER[1], _FILLER[2], url],
                                         "filename": "f.bin"}}),
)

#: The plugin's hostPermissions an instance states (the runner also asks with none and with
#: ``<all_urls>``); ``None`` is replaced by the hazard's own covering pattern.
_PERMISSIONS: tuple[list[str] | None, ...] = ([], ["*://commons.wikimedia.org/*"], None,
                                              ["https://api.example.org/v1/*", "*://*.example.net/*"])


@template("task_source.fields", params={"type": "object", "additionalProperties": False})
def expand_fields(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every task-source hazard in every URL-carrying place of a hook's result (H17, §9.4)."""
    for name, url, operator, expected, grant, note, advisory in HAZARDS:
        for field, build in FIELDS:
            permissions = rng.choice(_PERMISSIONS)
            given: dict[str, Any] = {**build(url),
                                     "hostPermissions": [grant] if permissions is None else permissions}
            if operator is not None:
                given["operator"] = operator
            who = f" from a {operator} operator" if operator else ""
            verdict = "admitted" if expected["admitted"] else "refused"
            yield Instance(
                key=f"{name}.{field}.{_key(url, field, repr(given['hostPermissions']))}",
                title=f"{name} URL as {field}{who} is {verdict} whatever the hostPermissions",
                kind="task_source.admit",
                polarity="positive" if expected["admitted"] else "negative",
                given=given, expect=dict(expected), advisory=advisory,
                notes=note or advisory,
            )
    many = [f"https://mirror-{i}.example.org/f.bin" for i in range(_URLS_PER_REQUEST + 1)]
    for name, uris, expected, note in (
        ("uris-at-count-limit", many[:-1], _ADMITTED, "§9.1: 128 URLs per request is valid"),
        ("uris-over-count-limit", many, _REFUSED, "§9.1/§9.4 URL limits: 129 URLs per request"),
        ("uris-empty", [], _REFUSED, "§9.4: the final URI list must not be empty"),
    ):
        for permissions in ([], ["<all_urls>"]):
            yield Instance(
                key=f"{name}.{len(permissions)}",
                title=f"a patch returning {len(uris)} URLs is "
                      f"{'admitted' if expected['admitted'] else 'refused'}",
                kind="task_source.admit",
                polarity="positive" if expected["admitted"] else "negative",
                given={"patch": {"uris": uris}, "hostPermissions": permissions},
                expect=dict(expected), notes=note,
            )


# ----------------------------------------------------------------------------- beforeFinalize

_HEX = "c12fe1c06bba254a9dc9f519b335aa7c1367a88a"
_B32 = "YEX6DQDLXISUVHOJ6UM3GNNKPQJWPKEK"


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


_TASK = "task-0042"  # nine bytes: its base64url needs no padding
_PASSKEY_MAGNET = (f"magnet:?xt=urn:btih:{_HEX}&dn=ubuntu.iso"
                   "&tr=https%3A%2F%2Ftracker.example%2Fannounce%3Fpasskey%3Ds3cr3t")

_SOURCE = "§9.4: BT/magnet sourceUrl is urn:btih:<infoHash> or urn:motrix:bt:<base64url(taskId)>"
_NEVER = ("§9.4: torrent file paths, raw magnet queries, tracker URLs and credentials never cross "
          "this boundary")
_ADMITTED_SOURCE = "§9.4: an HTTP-like task's sourceUrl is the admitted source URL"

#: ``(name, task type, infoHash, sourceUrl, valid, note, advisory)``
FINALIZE_SOURCES: tuple[tuple[str, str, str | None, str, bool, str, str], ...] = (
    ("btih-hex", "magnet", _HEX, f"urn:btih:{_HEX}", True, _SOURCE, ""),
    ("btih-base32", "bt", _B32, f"urn:btih:{_B32}", True, _SOURCE, ""),
    ("motrix-bt", "bt", None, f"urn:motrix:bt:{_b64url(_TASK)}", True, _SOURCE, ""),
    ("magnet-passkey", "magnet", _HEX, _PASSKEY_MAGNET, False, _NEVER, ""),
    ("magnet-passkey-no-hash", "magnet", None, _PASSKEY_MAGNET, False, _NEVER, ""),
    ("magnet-query", "magnet", _HEX, f"magnet:?xt=urn:btih:{_HEX}", False, _NEVER, ""),
    ("tracker", "bt", _HEX, "https://tracker.example/announce?passkey=s3cr3t", False, _NEVER, ""),
    ("torrent-path", "bt", None, "/home/user/Downloads/ubuntu.torrent", False, _NEVER, ""),
    ("torrent-file-url", "bt", None, "file:///home/user/Downloads/ubuntu.torrent", False, _NEVER, ""),
    ("short-hash", "magnet", None, f"urn:btih:{_HEX[:-1]}", False,
     _SOURCE + "; a hash that is not 40 hex or 32 base32 is not valid", ""),
    ("wrong-task", "bt", None, f"urn:motrix:bt:{_b64url('task-0043')}", False,
     _SOURCE + "; the identifier is that of this task", ""),
    ("btih-other-hash", "magnet", _HEX, f"urn:btih:{'0' * 40}", False,
     _SOURCE + "; the info hash is the task's", ""),
    ("motrix-bt-despite-hash", "bt", _HEX, f"urn:motrix:bt:{_b64url(_TASK)}", False, _SOURCE,
     "§9.4 picks urn:btih for a valid info hash; that the snapshot's infoHash is that hash is the "
     "reference's reading"),
    ("http-admitted", "http", None, "https://dl.example.org/f.bin", True, _ADMITTED_SOURCE, ""),
    ("http-credentials", "http", None, "https://user:pass@dl.example.org/f.bin", False,
     _ADMITTED_SOURCE + "; admission rejects credentials", ""),
    ("ftp-source", "ftp", None, "ftp://dl.example.org/pub/f.iso", True,
     "§9.4: sourceUrl is a non-empty source identity", ""),
)


def _finalize_context(task_type: str, info_hash: str | None, source: str) -> dict[str, Any]:
    bt = task_type in ("bt", "magnet")
    return {
        "schemaVersion": 1, "invocationId": "inv-1", "taskId": _TASK, "sourceUrl": source,
        "createdBy": "user", "requestedAt": 1_700_000_000_000,
        "task": {
            "schemaVersion": 1, "id": _TASK, "name": "ubuntu.iso", "type": task_type,
            "kind": "bt" if bt else "direct", "status": "finalizing",
            "filePath": "/downloads/ubuntu.iso", "saveDir": "/downloads", "filename": "ubuntu.iso",
            "progress": 100, "totalBytes": 4096, "downloadedBytes": 4096, "uploadedBytes": 0,
            "sizeWhenDone": 4096, "fileCount": 1, "createdAt": 1_700_000_000_000,
            "updatedAt": 1_700_000_000_500, "finishedAt": None, "category": None,
            "infoHash": info_hash, "error": None,
        },
        "inputFilePath": "/downloads/ubuntu.iso", "filePath": "/downloads/ubuntu.iso",
        "targetFilePath": "/downloads/ubuntu.iso",
    }


@template("task_source.finalize_source", params={"type": "object", "additionalProperties": False})
def expand_finalize_source(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Each ``sourceUrl`` form for each task type, alone and inside ``hook.enter`` (H4, §9.4)."""
    for name, task_type, info_hash, source, valid, note, advisory in FINALIZE_SOURCES:
        context = _finalize_context(task_type, info_hash, source)
        for schema, value, pointer in (
            ("BeforeFinalizeContextV1", context, "/sourceUrl"),
            ("HookEnterMessageV1", {"type": "event", "event": "hookEnter", "invocationId": "inv-1",
                                    "callChainId": "chain-1", "permissionGeneration": 1,
                                    "taskId": _TASK, "hook": "beforeFinalize", "ctxPayload": context,
                                    "metadataSnapshot": {}},
             "/ctxPayload/sourceUrl"),
        ):
            expect: dict[str, Any] = {"valid": True} if valid else {
                "valid": False, "code": "plugin.hook.input_invalid", "path": pointer}
            yield Instance(
                key=f"{name}.{'enter' if schema.startswith('Hook') else 'context'}",
                title=f"a {task_type} task's beforeFinalize sourceUrl {source[:60]!r} "
                      f"{'crosses' if valid else 'is refused at'} the host → worker boundary",
                kind="dto.validate",
                polarity="positive" if valid else "negative",
                given={"schema": schema, "value": value, "direction": "input"},
                expect=expect, advisory=advisory, notes=note,
            )
