"""Mutant runtimes whose ``ctx.metadata`` (§9.3, H7) has one realistic defect each.

Each factory returns the reference candidate with its SDK prelude patched in one place, so
only the metadata surface differs; the metadata programs (``guest.metadata_model``) must
catch every one of them through ``hookconf run`` alone.
"""

from tests.mutants.guest.guest_prelude import PreludeMutant, _patched

_GET_ALL_LOOP = """        for (const [key, text] of data) {
          defineProperty(all, key, { value: jsonParse(text), writable: true, enumerable: true,
            configurable: true });
        }"""
_OWN = "Object.prototype.hasOwnProperty.call(snapshot, String(key))"


def get_all_ignores_staged_writes() -> PreludeMutant:
    """``getAll()`` answers from the invocation's original snapshot, not the staged view."""
    return PreludeMutant("get-all-ignores-staged-writes", _patched(_GET_ALL_LOOP, """\
        for (const key of Object.keys(snapshot)) {
          defineProperty(all, key, { value: snapshot[key], writable: true, enumerable: true,
            configurable: true });
        }"""))


def keys_list_deleted() -> PreludeMutant:
    """``keys()`` joins the snapshot's keys to the staged view's, so a deleted key stays listed."""
    return PreludeMutant("keys-list-deleted", _patched(
        "keys() { return Array.from(data.keys()); },",
        "keys() { return Array.from(new Set([...Object.keys(snapshot), ...data.keys()])); },"))


def delete_not_staged() -> PreludeMutant:
    """``delete`` removes the key from the view but never becomes a returned operation."""
    return PreludeMutant("delete-not-staged", _patched(
        "current.ops.set(key, { op: 'delete', key });", ""))


def delete_not_applied() -> PreludeMutant:
    """``delete`` is returned as an operation but the view keeps the key (no read-after-write)."""
    return PreludeMutant("delete-not-applied", _patched("data.delete(key);", ""))


def get_reads_snapshot() -> PreludeMutant:
    """``get`` reads the invocation's original snapshot, before any staged write."""
    return PreludeMutant("get-reads-snapshot", _patched(
        "const text = data.get(String(key));",
        f"const text = {_OWN} ? jsonStringify(snapshot[String(key)]) : undefined;"))


def has_deleted_key() -> PreludeMutant:
    """``has`` stays true for a snapshot key the invocation deleted."""
    return PreludeMutant("has-deleted-key", _patched(
        "has(key) { return data.has(String(key)); },",
        f"has(key) {{ return data.has(String(key)) || {_OWN}; }},"))


def has_by_in_operator() -> PreludeMutant:
    """``has`` asks ``key in getAll()``, so inherited names (``toString``, ``constructor``) count."""
    return PreludeMutant("has-by-in-operator", _patched(
        "has(key) { return data.has(String(key)); },",
        "has(key) { return String(key) in metadata.getAll(); },"))


def get_all_by_assignment() -> PreludeMutant:
    """``getAll()`` builds its object by assignment, so a ``__proto__`` key disappears."""
    return PreludeMutant("get-all-by-assignment", _patched(
        _GET_ALL_LOOP, "        for (const [key, text] of data) all[key] = jsonParse(text);"))


def post_hook_set_accepted() -> PreludeMutant:
    """A post-hook's ``ctx.metadata`` has ``set`` and ``delete`` that accept silently and do nothing."""
    return PreludeMutant("post-hook-set-accepted", _patched(
        "    return Object.freeze(metadata);\n  }\n\n  function makeContext",
        "    else { metadata.set = function set() {}; metadata.delete = function del() {}; }\n"
        "    return Object.freeze(metadata);\n  }\n\n  function makeContext"))
