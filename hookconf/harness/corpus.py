"""Loading and linting the corpus: case files validated by ``corpus/schema/case.schema.json``.

A case file is a JSON file holding one case object or an array of case objects.  The
embedded corpus lives in the ``corpus`` package; ``--corpus PATH`` adds folders or files.
Every problem is reported with its file and JSON pointer; a corpus with any problem is
refused as a whole (exit 2) so that a malformed case can never be silently skipped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from hookconf import corpus as embedded
from hookconf.harness import generate
from hookconf.harness.kinds import KINDS
from hookconf.harness.markers import MarkerError, expand_markers

__all__ = ["Case", "Corpus", "Problem", "load_corpus"]


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

    @property
    def normative(self) -> bool:
        """False for an advisory case: the spec does not decide it, so it never counts in
        the verdict (it is run, judged and reported apart)."""
        return not self.advisory


@dataclass(slots=True)
class Corpus:
    """The loaded cases, in a stable order (by id), the problems found and a content digest."""

    cases: list[Case] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    digest: str = ""


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(embedded.SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _case_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        else:
            files.append(path)
    return files


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(embedded.ROOT.parent))
    except ValueError:
        return str(path)


def load_corpus(extra: Sequence[Path] = (), *, embedded_corpus: bool = True, seed: int = 0) -> Corpus:
    """Load the embedded corpus (unless disabled) and every extra file or folder.

    Template entries (``"template": NAME``) are expanded into their instances
    (:mod:`hookconf.harness.generate`), seeded by ``seed``.  Never raises for bad data:
    unreadable files, invalid JSON, schema violations, bad markers, a template that cannot
    be expanded, duplicate ids and kind/invariant mismatches all become :class:`Problem` rows.
    """
    roots = ([embedded.CASES] if embedded_corpus else []) + [Path(p) for p in extra]
    result = Corpus()
    validator = _validator()
    template_validator = _template_validator()
    seen: dict[str, str] = {}
    digest = hashlib.sha256()
    for root in roots:
        if not root.exists():
            result.problems.append(Problem(str(root), "", "no such file or folder"))
        elif root.is_dir() and root is not embedded.CASES and not _case_files([root]):
            result.problems.append(Problem(str(root), "", "folder holds no *.json case file"))
    for path in _case_files(r for r in roots if r.exists()):
        name = _display(path)
        result.files.append(name)
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
        except (OSError, UnicodeDecodeError) as exc:
            result.problems.append(Problem(name, "", f"cannot read: {exc}"))
            continue
        except json.JSONDecodeError as exc:
            result.problems.append(
                Problem(name, "", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
            )
            continue
        digest.update(name.encode() + b"\0" + raw + b"\0")
        entries = list(enumerate(data)) if isinstance(data, list) else [(None, data)]
        for index, entry in entries:
            base = "" if index is None else f"/{index}"
            if isinstance(entry, dict) and "template" in entry:
                cases = _expand_template(entry, name, base, template_validator, validator,
                                         result.problems, seed)
            else:
                cases = [_load_case(entry, name, base, validator, result.problems)]
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
    result.cases.sort(key=lambda c: c.id)
    result.digest = "sha256:" + digest.hexdigest()
    return result


def _template_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(embedded.TEMPLATE_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _expand_template(
    entry: dict[str, Any],
    name: str,
    base: str,
    template_validator: jsonschema.Draft202012Validator,
    validator: jsonschema.Draft202012Validator,
    problems: list[Problem],
    seed: int,
) -> list[Case | None]:
    """The cases of one template entry, each validated like a hand-written case; problems
    are located at the template entry (an instance's own pointer cannot be in the file)."""
    errors = sorted(template_validator.iter_errors(entry), key=lambda e: list(e.absolute_path))
    if errors:
        for error in errors:
            pointer = base + "".join(f"/{p}" for p in error.absolute_path)
            problems.append(Problem(name, pointer, _message(error)))
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
        case = _load_case(raw, name, base, validator, found)
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
    validator: jsonschema.Draft202012Validator,
    problems: list[Problem],
) -> Case | None:
    errors = sorted(validator.iter_errors(entry), key=lambda e: list(e.absolute_path))
    if errors:
        for error in errors:
            pointer = base + "".join(f"/{p}" for p in error.absolute_path)
            problems.append(Problem(name, pointer, _message(error)))
        return None
    try:
        given = expand_markers(entry["given"], base + "/given")
        expect = expand_markers(entry["expect"], base + "/expect")
    except MarkerError as exc:
        problems.append(Problem(name, exc.pointer, str(exc).split(": ", 1)[-1]))
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
    )


def _message(error: jsonschema.ValidationError) -> str:
    """A schema error in one line, preferring the most specific sub-error of a combinator."""
    if error.context:
        deepest = max(error.context, key=lambda e: len(e.absolute_path))
        return deepest.message
    return error.message
