"""Generated §15 HTTP URL diagnostics cases: every credential name §15 lists, at every place
in a query, in the URL a plugin is given and in the URL it returns.

``runtime.url-diagnostics`` builds each URL from a list of ``(name, value)`` query pairs, so
the expected log copy is built from the same pairs — the credential values swapped for
``[redacted]``, the fragment left out — and needs no URL parser of the harness's own.  For
each name §15 lists (``token``, ``sig``, ``signature``, ``X-Amz-Credential``) and each place
(``first``, ``middle``, ``last``, and ``repeated``: the name twice, around ordinary pairs), it
yields one ``runtime.diagnostics`` case with the credential in the task's source URL (the
``input``, ``output`` and ``dispatch`` records of a plugin that changes nothing) and one with
it in the URL a resolver returns (its ``output`` and ``dispatch`` records); the fragment is
present in every other instance.  The ordinary pairs — ``id`` twice, an empty ``export``,
``confirm`` with a percent-encoded space, a percent-encoded UTF-8 ``name`` — are drawn and
ordered by the seeded ``rng`` and must come out byte for byte.  Two instances without any
credential check that nothing else changes.  Every instance expects the hook context and the
engine request to keep the original bytes, and names each credential value as never logged.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template

__all__ = ["NAMED_CREDENTIALS", "expand_url_diagnostics"]

#: The credential names §15 lists ("token、sig、signature、X-Amz-Credential 等").
NAMED_CREDENTIALS = ("token", "sig", "signature", "X-Amz-Credential")
_ORDINARY = (("id", "1"), ("id", "2"), ("export", ""), ("confirm", "t%20x"), ("name", "caf%C3%A9"))
_PLACES = ("first", "middle", "last", "repeated")
_NOTE = ("§15 HTTP URL 诊断: 统一的凭据名称规则会将 token、sig、signature、X-Amz-Credential 等参数值替换为 "
         "[redacted]，并移除 URL 中的用户名、密码和 fragment。未遮蔽参数的顺序、重复项、空值和百分号编码保持原样。"
         "这些转换只作用于日志副本，Hook 上下文与引擎请求中的原始 URL 字节保持不变")


def _manifest(pid: str) -> dict[str, Any]:
    return {"id": pid, "version": "1.0.0", "engines": {"motrix": ">=2.0.0"},
            "activationEvents": ["onTaskType:http"], "hostPermissions": ["*://*/*"], "permissions": [],
            "contributes": {"hooks": {"beforeCreate": {"role": "resolve"}}}}


def _url(host: str, pairs: list[tuple[str, str]], fragment: str) -> str:
    query = "&".join(f"{name}={value}" for name, value in pairs)
    return f"https://{host}/get?{query}" + (f"#{fragment}" if fragment else "")


def _pairs(rng: random.Random, name: str | None, place: str, secret: str) -> list[tuple[str, str]]:
    ordinary = list(_ORDINARY)
    rng.shuffle(ordinary)
    ordinary = ordinary[:3]
    if name is None:
        return ordinary
    cred = (name, secret)
    if place == "first":
        return [cred, *ordinary]
    if place == "last":
        return [*ordinary, cred]
    if place == "middle":
        return [ordinary[0], cred, *ordinary[1:]]
    return [cred, *ordinary, (name, secret + "-again")]


def _copy(host: str, pairs: list[tuple[str, str]]) -> str:
    named = {n.lower() for n in NAMED_CREDENTIALS}
    return _url(host, [(n, "[redacted]" if n.lower() in named else v) for n, v in pairs], "")


def _instance(key: str, name: str | None, place: str, where: str, fragment: str,
              rng: random.Random) -> Instance:
    secret = f"SECRET-{key.replace('.', '-')}"
    pairs = _pairs(rng, name, place, secret)
    if where == "input":
        source = _url("files.example", pairs, fragment)
        seen = _copy("files.example", pairs)
        records = {"input": [seen], "output": [seen], "dispatch": [seen]}
        guest: dict[str, Any] = {"hooks": {"beforeCreate": [{"observe": "uris"}]}}
        final = source
    else:
        source = "https://files.example/page?id=9"
        returned = _url("cdn.files.example", pairs, fragment)
        copy = _copy("cdn.files.example", pairs)
        records = {"input": [source], "output": [copy], "dispatch": [copy]}
        guest = {"hooks": {"beforeCreate": [{"patch": {"uris": [returned]}}]}}
        final = returned
    secrets = [v for n, v in pairs if n == name] + ([fragment] if fragment else [])
    what = f"{name} {place}" if name else "no credential"
    title = (f"{what} in the URL the plugin {'is given' if where == 'input' else 'returns'}"
             f"{' (with a fragment)' if fragment else ''}: the log records hold "
             f"{'the value [redacted]' if name else 'every byte'}, the context and engine request the original")
    expect: dict[str, Any] = {"context": [final], "engine": [final], "records": {"a.resolver": records}}
    if secrets:
        expect["neverLogged"] = secrets
    return Instance(key=key, title=title, kind="runtime.diagnostics",
                    polarity="negative" if secrets else "positive",
                    given={"plugins": [{"manifest": _manifest("a.resolver"), "guest": guest}],
                           "tasks": [{"taskId": "t1", "type": "http", "sourceUrl": source,
                                      "filename": "file.bin"}]},
                    expect=expect, notes=_NOTE)


@template("runtime.url-diagnostics", params={
    "type": "object", "additionalProperties": False,
    "properties": {"names": {"type": "array", "minItems": 1, "items": {"enum": list(NAMED_CREDENTIALS)}}},
})
def expand_url_diagnostics(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every §15 credential name at every place, in the input and the output URL."""
    count = 0
    for name in params.get("names", NAMED_CREDENTIALS):
        for place in _PLACES:
            for where in ("input", "output"):
                fragment = f"frag-{count}" if count % 2 else ""
                count += 1
                slug = name.lower().replace("-", "_")
                yield _instance(f"{slug}.{place}.{where}", name, place, where, fragment, rng)
    for where in ("input", "output"):
        yield _instance(f"ordinary.{where}", None, "", where, "", rng)
