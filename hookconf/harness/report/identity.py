"""What was run: digests of the candidate's code and of this hookconf, for a certificate.

A digest is ``"sha256:<hex>"`` of the canonical JSON (:func:`canonical_json`) of
``{"spec", "files"}``, where ``files`` maps a label to the SHA-256 of that file's bytes:

* ``reference`` — every file of the ``hookconf.reference`` package (code and data);
* ``module:factory`` — the source file of the named module, of the factory's module and of
  every module defining a class of the candidate object's type (its MRO); when that type
  derives from a reference class, the whole reference package as well;
* ``cmd:<command line>`` — the program (the first word, looked up on ``PATH``) and every
  other word of the command line that names an existing regular file (``node adapter.js``
  hashes ``node`` and ``adapter.js``).  Files the program opens by itself are not seen: the
  hello's name and version stand for them.

Labels are paths relative to the folder of the top-level package (in-process) or the words
as written (``cmd:``), so the digest does not depend on where the repository was cloned.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import shlex
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import hookconf

__all__ = ["canonical_json", "candidate_files", "digest_of", "hookconf_files", "sha256_bytes"]

#: The installed package's folder; reference and corpus are digested apart from the harness.
PACKAGE = Path(hookconf.__file__).resolve().parent
REFERENCE = PACKAGE / "reference"
#: File suffixes that make up a package's behaviour (caches and editor files are left out).
CODE_SUFFIXES = (".py", ".js", ".json", ".txt", ".wasm")


def canonical_json(value: Any) -> bytes:
    """The canonical bytes of a JSON value: keys sorted, no whitespace, UTF-8, no NaN.

    Only strings, integers, booleans, null, lists and objects occur in certificates, so
    this form equals RFC 8785 (JCS) for them.

    Raises:
        ValueError: ``value`` holds a non-finite number.
        TypeError: ``value`` holds something that is not JSON.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8", "surrogatepass")


def sha256_bytes(data: bytes) -> str:
    """``"sha256:<64 hex digits>"`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest_of(spec: str, files: dict[str, str]) -> str:
    """The digest of what was run: SHA-256 of the canonical ``{"spec", "files"}``."""
    return sha256_bytes(canonical_json({"spec": spec, "files": dict(sorted(files.items()))}))


def _tree(root: Path, base: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts:
            found[path.relative_to(base).as_posix()] = sha256_bytes(path.read_bytes())
    return found


def hookconf_files() -> dict[str, str]:
    """Every code file of this hookconf except the reference and the corpus (digested apart)."""
    return {label: digest for label, digest in _tree(PACKAGE, PACKAGE.parent).items()
            if not label.startswith(("hookconf/reference/", "hookconf/corpus/"))}


def _module_file(name: str) -> tuple[str, Path] | None:
    module = sys.modules.get(name)
    if module is None:
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that cannot be imported has no file to hash
            return None
    file = getattr(module, "__file__", None)
    if not file or not Path(file).is_file():
        return None
    path = Path(file).resolve()
    depth = name.count(".") + (1 if path.name == "__init__.py" else 0)
    base = path.parents[depth] if depth < len(path.parents) else path.parent
    return path.relative_to(base).as_posix(), path


def _in_process_files(spec: str, candidate: Any) -> dict[str, str]:
    names: list[str] = []
    module_name = spec.partition(":")[0] if spec != "reference" else "hookconf.reference.candidate"
    names.append(module_name)
    modules: Iterable[str] = (getattr(cls, "__module__", "") for cls in inspect.getmro(type(candidate)))
    names += [m for m in modules if m and m != "builtins"]
    files: dict[str, str] = {}
    uses_reference = spec == "reference"
    for name in dict.fromkeys(names):
        if name == "hookconf.reference" or name.startswith("hookconf.reference."):
            uses_reference = True
            continue
        found = _module_file(name)
        if found is not None:
            files[found[0]] = sha256_bytes(found[1].read_bytes())
    if uses_reference:
        files.update(_tree(REFERENCE, PACKAGE.parent))
    return files


def _command_files(line: str) -> dict[str, str]:
    try:
        words = shlex.split(line)
    except ValueError:
        return {}
    files: dict[str, str] = {}
    for index, word in enumerate(words):
        path = Path(word)
        if index == 0 and not path.is_file():
            located = shutil.which(word)
            path = Path(located) if located else path
        try:
            if path.is_file():
                files[word] = sha256_bytes(path.read_bytes())
        except OSError:
            continue
    return files


def candidate_files(spec: str, candidate: Any = None) -> dict[str, str]:
    """The files whose digests identify the candidate named by ``spec`` (see the module doc).

    Args:
        spec: the ``--candidate`` value.
        candidate: the in-process candidate object (``reference`` and ``module:factory``);
            ``None`` for ``cmd:``.
    """
    if spec.startswith("cmd:"):
        return _command_files(spec[4:])
    return _in_process_files(spec, candidate)
