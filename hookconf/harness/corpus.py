"""Loading and linting the corpus: case files validated by ``corpus/schema/case.schema.json``.

A case file is a JSON file holding one case object or an array of case objects.  The
embedded corpus lives in the ``corpus`` package; ``--corpus PATH`` adds folders or files.
Every problem is reported with its file and JSON pointer; a corpus with any problem is
refused as a whole (exit 2) so that a malformed case can never be silently skipped.

Case files are other people's files.  Each is read through :mod:`hookconf.boundedjson`: at
most :data:`MAX_CASE_FILE_BYTES`, strict UTF-8, at most
:data:`~hookconf.boundedjson.MAX_DEPTH` nested containers; markers expand within one
corpus-wide :class:`~hookconf.harness.markers.MarkerBudget`; every fixture plugin a case
names must exist (in its corpus's own ``plugins/`` folder or the embedded one) and parse.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from hookconf import boundedjson
from hookconf import corpus as embedded
from hookconf.harness import generate, tables
from hookconf.harness.fixtures import FixtureError, load_fixture, plugin_folders, plugin_ids
from hookconf.harness.kinds import KINDS
from hookconf.harness.markers import MarkerBudget, MarkerError, expand_markers
from hookconf.harness.schemacheck import Schema, json_message

__all__ = ["MAX_CASE_FILE_BYTES", "Case", "Corpus", "Problem", "load_corpus"]

#: Largest case file read (bytes); the embedded corpus's largest is under 1 MiB.
MAX_CASE_FILE_BYTES = 64 * 1024 * 1024
#: Longest problem message (characters); a schema error can quote a huge value.
_MAX_MESSAGE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Problem:
    """One corpus error: ``file`` and JSON ``pointer`` locate it, ``message`` says what."""

    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}#{self.pointer or '/'}: {self.message}"


@dataclass(frozen=True, slots=True)
class Case:
    """A validated case with its generator markers expanded (fields as in the case schema)."""

    id: str
    title: str
    invariants: tuple[str, ...]
    spec: str
    kind: str
    polarity: str
    given: Any
    expect: Any
    source: dict[str, Any]
    file: str
    pointer: str
    advisory: str = ""
    template: str = ""
    #: The second profile the case belongs to (``lease``) and the profile rows it judges
    #: (:mod:`hookconf.harness.profiles`); empty when it belongs to none.
    profile: str = ""
    profile_rows: tuple[str, ...] = ()
    #: Folders its fixture plugins are looked up in, in order: its corpus's own
    #: ``plugins/`` first, then the embedded ``hookconf/corpus/plugins/``.
    plugins: tuple[Path, ...] = (embedded.PLUGINS,)

    @property
    def normative(self) -> bool:
        """False for an advisory case: the spec does not decide it, so it never counts in
        the verdict (it is run, judged and reported apart)."""
        return not self.advisory


@dataclass(slots=True)
class Corpus:
    """The loaded cases, in a stable order (by id), the problems found and a content digest
    (of every case file read and of the corpus tables the templates derive from)."""

    cases: list[Case] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    digest: str = ""


def _validator() -> Schema:
    return Schema(json.loads(embedded.SCHEMA.read_text(encoding="utf-8")))


def _case_files(paths: Iterable[Path]) -> list[Path]:
    """Case files under each root; a root's own ``plugins/`` folder holds fixtures, not cases."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            fixtures = path / "plugins"
            files.extend(sorted(p for p in path.rglob("*.json")
                                if p.is_file() and not p.is_relative_to(fixtures)))
        else:
            files.append(path)
    return files


def _read_case_file(path: Path) -> bytes:
    with path.open("rb") as handle:
        raw = handle.read(MAX_CASE_FILE_BYTES + 1)
    if len(raw) > MAX_CASE_FILE_BYTES:
        raise boundedjson.JsonBoundsError(f"file is more than {MAX_CASE_FILE_BYTES} bytes")
    return raw


def _display(path: Path) -> str:
    """An embedded case file as ``hookconf/corpus/cases/…`` (its path in the repository and
    in an installed copy alike); any other file as given."""
    try:
        return str(path.resolve().relative_to(embedded.ROOT.parent.parent))
    except ValueError:
        return str(path)


def load_corpus(extra: Sequence[Path] = (), *, embedded_corpus: bool = True, seed: int = 0,
                shared: bool = False) -> Corpus:
    """Load the embedded corpus (unless disabled) and every extra file or folder.

    A corpus loaded before in this process (same seed, same files) is not read again: the
    caller gets a deep copy of it, or — ``shared`` — new lists holding the loaded
    :class:`Case` objects themselves, which the caller must not change (copy a case before
    running it: ``hookconf run`` copies only the cases it selects, not all of them).

    Template entries (``"template": NAME``) are expanded into their instances
    (:mod:`hookconf.harness.generate`), seeded by ``seed``.  Never raises for bad data:
    unreadable files, invalid JSON, schema violations, bad markers, a template that cannot
    be expanded, duplicate ids and kind/invariant mismatches all become :class:`Problem` rows.
    """
    roots = ([embedded.CASES] if embedded_corpus else []) + [Path(p) for p in extra]
    key = (seed, _signature(roots))
    if key not in _LOADED:
        if len(_LOADED) >= _MAX_LOADED:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = _load_roots(roots, seed)
    loaded = _LOADED[key]
    if shared:
        return Corpus(cases=list(loaded.cases), problems=list(loaded.problems),
                      files=list(loaded.files), digest=loaded.digest)
    return copy.deepcopy(loaded)


#: Corpora loaded in this process, by seed and the files' signature (a long-lived caller —
#: the test suite, a pytest plugin, ``serve`` — loads an unchanged corpus once).  Each caller
#: gets its own deep copy.
_LOADED: dict[tuple[Any, ...], Corpus] = {}
_MAX_LOADED = 4


def _signature(roots: Sequence[Path]) -> tuple[Any, ...]:
    """What a loaded corpus depends on: every file under each root, under the embedded
    plugin fixtures and under the corpus tables generated cases derive from, by path and a
    digest of its bytes.  A change to any of them — or a
    root that appears or vanishes — loads afresh.  A file too large to hash here is never
    cached (the loader refuses it anyway)."""
    parts: list[Any] = []
    for root in [*roots, embedded.PLUGINS, embedded.TABLES]:
        parts.append(str(root.resolve()) if root.exists() else f"missing:{root}")
        try:
            files = sorted(root.rglob("*")) if root.is_dir() else [root]
            for path in files:
                if not path.is_file():
                    parts.append((str(path), "not a file"))
                    continue
                with path.open("rb") as handle:
                    raw = handle.read(MAX_CASE_FILE_BYTES + 1)
                if len(raw) > MAX_CASE_FILE_BYTES:
                    return (object(),)
                parts.append((str(path), hashlib.sha256(raw).digest()))
        except OSError:  # a file that vanishes or cannot be read: never cached
            return (object(),)
    return tuple(parts)


def _load_roots(roots: Sequence[Path], seed: int) -> Corpus:
    result = Corpus()
    validator = _validator()
    template_validator = _template_validator()
    seen: dict[str, str] = {}
    digest = hashlib.sha256()
    budget = MarkerBudget()
    for root in roots:
        if not root.exists():
            what = "a symbolic link to nothing (or a loop)" if root.is_symlink() else "no such file or folder"
            result.problems.append(Problem(str(root), "", what))
        elif root.is_dir() and root is not embedded.CASES and not _case_files([root]):
            result.problems.append(Problem(str(root), "", "folder holds no *.json case file"))
    fixtures: dict[Path, Path] = {}  # every plugins/ folder the cases may use, once each
    for root in (r for r in roots if r.exists()):
        folders = plugin_folders(root)
        fixtures.update({f.resolve(): f for f in folders if f.resolve() not in fixtures})
        before = (len(result.cases), len(result.problems))
        for path in _case_files([root]):
            _load_file(path, folders, validator, template_validator, seen, digest, budget, seed, result)
        if root is not embedded.CASES and (len(result.cases), len(result.problems)) == before:
            # e.g. a file holding ``[]``: asked for, yet nothing of it would run
            result.problems.append(Problem(str(root), "", "holds no case"))
    result.cases.sort(key=lambda c: c.id)
    # The tables every template derives its cases from (§9 schemas, §9.1 and §11 limits,
    # example instances) are part of what the cases are, generated or not.
    for name, raw in tables.files():
        digest.update(f"tables/{name}".encode() + b"\0" + raw + b"\0")
    # So are the fixture plugins the cases run (their manifests and code, every file).
    for folder in fixtures.values():
        _digest_fixtures(folder, digest, result)
    result.digest = "sha256:" + digest.hexdigest()
    _fixture_problem.cache_clear()  # a later load sees the files as they are then
    return result


def _digest_fixtures(folder: Path, digest: Any, result: Corpus) -> None:
    """Add every file below a ``plugins/`` folder to the corpus digest, by its path below
    the folder's display name (the same on every machine for the embedded one)."""
    name = _display(folder)
    try:
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        for path in files:
            content = hashlib.sha256()  # read in blocks: a fixture's size is its loader's to judge
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    content.update(block)
            digest.update(f"{name}/{path.relative_to(folder).as_posix()}".encode() + b"\0"
                          + content.digest() + b"\0")
    except OSError as exc:
        result.problems.append(Problem(name, "", f"cannot read a fixture plugin: {exc.strerror or exc}"))


def _load_file(path: Path, folders: tuple[Path, ...], validator: Schema,
               template_validator: Schema, seen: dict[str, str],
               digest: Any, budget: MarkerBudget, seed: int, result: Corpus) -> None:
    """Load one case file into ``result`` (cases, or problems with file and pointer)."""
    name = _display(path)
    result.files.append(name)
    try:
        raw = _read_case_file(path)
        data = boundedjson.loads(raw)
    except OSError as exc:
        result.problems.append(Problem(name, "", f"cannot read: {exc.strerror or exc}"))
        return
    except boundedjson.JsonBoundsError as exc:
        result.problems.append(Problem(name, exc.pointer, exc.reason))
        return
    digest.update(name.encode() + b"\0" + raw + b"\0")
    entries = list(enumerate(data)) if isinstance(data, list) else [(None, data)]
    for index, entry in entries:
        base = "" if index is None else f"/{index}"
        if isinstance(entry, dict) and "template" in entry:
            cases = _expand_template(entry, name, base, template_validator, validator,
                                     result.problems, seed, budget, folders)
        else:
            cases = [_load_case(entry, name, base, validator, result.problems, budget, folders)]
        for case in cases:
            if case is None:
                continue
            if case.id in seen:
                result.problems.append(
                    Problem(name, base + "/id", f"duplicate id {case.id!r} (first in {seen[case.id]})")
                )
                continue
            seen[case.id] = f"{name}#{base or '/'}"
            result.cases.append(case)


def _template_validator() -> Schema:
    return Schema(json.loads(embedded.TEMPLATE_SCHEMA.read_text(encoding="utf-8")))


def _expand_template(
    entry: dict[str, Any],
    name: str,
    base: str,
    template_validator: Schema,
    validator: Schema,
    problems: list[Problem],
    seed: int,
    budget: MarkerBudget,
    folders: tuple[Path, ...],
) -> list[Case | None]:
    """The cases of one template entry, each validated like a hand-written case; problems
    are located at the template entry (an instance's own pointer cannot be in the file)."""
    errors = sorted(template_validator.iter_errors(entry), key=lambda e: list(e.absolute_path))
    if errors:
        # two branches of a schema may say the same thing at the same place: said once
        problems.extend(dict.fromkeys(
            Problem(name, base + "".join(f"/{p}" for p in error.absolute_path), _message(error))
            for error in errors))
        return []
    try:
        instances = generate.expand(entry["template"], entry.get("params", {}), seed=seed,
                                    template_id=entry["id"])
    except generate.TemplateError as exc:
        problems.append(Problem(name, base + "/template", str(exc)))
        return []
    cases: list[Case | None] = []
    for instance in instances:
        raw: dict[str, Any] = {
            "id": f"{entry['id']}.{instance.key}",
            "title": instance.title,
            "invariants": list(instance.invariants or entry["invariants"]),
            "spec": instance.spec or entry["spec"],
            "kind": instance.kind,
            "polarity": instance.polarity,
            "given": instance.given,
            "expect": instance.expect,
            "source": entry["source"],
        }
        advisory = instance.advisory or entry.get("advisory", "")
        if advisory:
            raw["advisory"] = advisory
        if instance.notes:
            raw["notes"] = instance.notes
        found: list[Problem] = []
        case = _load_case(raw, name, base, validator, found, budget, folders)
        for problem in found:
            problems.append(Problem(name, base + "/template",
                                    f"instance {raw['id']!r}: {problem.pointer or '/'}: {problem.message}"))
        if case is not None:
            case = dataclasses.replace(case, template=entry["template"])
        cases.append(case)
    return cases


def _load_case(
    entry: Any,
    name: str,
    base: str,
    validator: Schema,
    problems: list[Problem],
    budget: MarkerBudget,
    folders: tuple[Path, ...],
) -> Case | None:
    errors = sorted(validator.iter_errors(entry), key=lambda e: list(e.absolute_path))
    if errors:
        # two branches of a schema may say the same thing at the same place: said once
        problems.extend(dict.fromkeys(
            Problem(name, base + "".join(f"/{p}" for p in error.absolute_path), _message(error))
            for error in errors))
        return None
    try:
        given = expand_markers(entry["given"], base + "/given", budget=budget)
        expect = expand_markers(entry["expect"], base + "/expect", budget=budget)
    except MarkerError as exc:
        problems.append(Problem(name, exc.pointer, str(exc).split(": ", 1)[-1]))
        return None
    missing = False
    for pointer, plugin_id in plugin_ids(entry["kind"], given):
        problem = _fixture_problem(plugin_id, folders)
        if problem:
            problems.append(Problem(name, base + "/given" + pointer, problem))
            missing = True
    if missing:
        return None
    kind = KINDS[entry["kind"]]
    judged = set(kind.invariants)
    for invariant in entry["invariants"]:
        if invariant not in judged:
            problems.append(Problem(
                name, base + "/invariants",
                f"kind {entry['kind']!r} can evidence only {sorted(judged)}, not {invariant}",
            ))
            return None
    if "profile" in entry:
        from hookconf.harness.profiles import PROFILES

        profile = PROFILES[entry["profile"]["name"]]
        stated = {r.id for r in profile.rows if r.expressible}
        unknown = [r for r in entry["profile"]["rows"] if r not in stated]
        if unknown:
            what = "not expressible" if unknown[0] in profile.row_ids() else "not a row"
            problems.append(Problem(name, base + "/profile/rows",
                                    f"profile {profile.name!r}: row {unknown[0]!r} is {what}"))
            return None
        if KINDS[entry["kind"]].family != profile.family:
            problems.append(Problem(name, base + "/profile",
                                    f"profile {profile.name!r} is judged by {profile.family!r} "
                                    f"cases, not {entry['kind']!r}"))
            return None
    if entry["kind"].startswith("runtime."):  # an expectation that matches everything
        from hookconf.harness.runtime.expect import vacuous

        found = vacuous(expect)
        for pointer, reason in found:
            problems.append(Problem(name, f"{base}/expect{pointer}", reason))
        if found:
            return None
    return Case(
        id=entry["id"],
        title=entry["title"],
        invariants=tuple(entry["invariants"]),
        spec=entry["spec"],
        kind=entry["kind"],
        polarity=entry["polarity"],
        given=given,
        expect=expect,
        source=entry["source"],
        file=name,
        pointer=base or "/",
        advisory=entry.get("advisory", ""),
        plugins=folders,
        profile=entry.get("profile", {}).get("name", ""),
        profile_rows=tuple(entry.get("profile", {}).get("rows", ())),
    )


@functools.lru_cache(maxsize=1024)
def _fixture_problem(plugin_id: str, folders: tuple[Path, ...]) -> str:
    """Why the fixture cannot be sent (``""`` if it can); read once per corpus load."""
    try:
        load_fixture(plugin_id, folders)
    except FixtureError as exc:
        return str(exc)
    return ""


def _message(error: jsonschema.ValidationError) -> str:
    """A schema error in one line, preferring the most specific sub-error of a combinator."""
    message = json_message(max(error.context, key=lambda e: len(e.absolute_path)) if error.context else error)
    return message if len(message) <= _MAX_MESSAGE_CHARS else message[:_MAX_MESSAGE_CHARS] + "…"
