"""guest.hook-effects: every hook's exit with each effect some hook may return (H4, §9.3-§9.5).

The template reads what each hook may return from the schema registry; these tests check that
its accepted exits are valid for their hook and its refused ones valid for another hook only,
and that the reference's own worker answers each as the case expects."""

from __future__ import annotations

from hookconf.harness.fixtures import load_fixture
from hookconf.harness.generate import expand
from hookconf.harness.generate.guest import hook_effects
from hookconf.reference.guest.invoke import run_plugin
from hookconf.reference.schemas import validate
from hookconf.reference.schemas.documents import EFFECTS_BY_HOOK


def _instances():
    return {i.key: i for i in expand("guest.hook-effects", {}, seed=0, template_id="guest.hook-effects")}


def test_what_each_hook_may_return_comes_from_the_registry():
    table = hook_effects()
    assert set(table) == set(EFFECTS_BY_HOOK)
    assert set(table["beforeFinalize"]["patches"]) == {"filePath"}
    assert not table["afterComplete"]["patches"] and not table["onError"]["metadata"]
    assert table["beforeCreate"]["metadata"] and "uris" in table["beforeCreate"]["patches"]


def test_every_hook_gets_every_effect_some_hook_may_return():
    found = _instances()
    table = hook_effects()
    fields = {f for allowed in table.values() for f in allowed["patches"]}
    for hook in table:
        tried = set()
        for polarity in ("accepted", "refused"):
            instance = found.get(f"{hook.lower()}.{polarity}")
            if instance is None:
                continue
            assert instance.polarity == ("positive" if polarity == "accepted" else "negative")
            for invocation, result in zip(instance.given["invocations"], instance.expect["results"],
                                          strict=True):
                effects = invocation["metadata"]["hookconf.exit"]
                assert invocation["hook"] == hook
                own = validate(EFFECTS_BY_HOOK[hook], effects, direction="output").valid
                assert own is (polarity == "accepted"), effects
                if polarity == "refused":  # each effect valid for another hook: only the hook decides
                    assert result["code"] == "plugin.hook.output_invalid"
                    foreign = [f for patch in effects["contextPatches"] for f in patch
                               if f not in table[hook]["patches"]]
                    if not foreign and not effects["metadataOperations"]:
                        [patch] = effects["contextPatches"]  # one own field, a value it refuses
                        assert set(patch) <= set(table[hook]["patches"]), patch
                    assert all(any(f in table[h]["patches"] for h in table if h != hook) for f in foreign)
                for patch in effects["contextPatches"]:
                    tried |= set(patch)
                tried |= {f"metadata.{op['op']}" for op in effects["metadataOperations"]}
        assert tried == fields | {"metadata.set", "metadata.delete"}, hook


def test_the_reference_worker_answers_each_exit_as_expected():
    found = _instances()
    fixture = load_fixture("hookconf.hook-effects")
    for key in ("aftercomplete.refused", "beforefinalize.refused", "beforecreate.accepted"):
        instance = found[key]
        answer = run_plugin(fixture["manifest"], fixture["source"], instance.given["invocations"])
        for wanted, seen in zip(instance.expect["results"], answer["results"], strict=True):
            assert seen["code"] == wanted["code"], (key, seen)
            for item in wanted.get("effects", {}).get("contextPatches", []):
                assert item in seen["effects"]["contextPatches"]


def test_a_hook_that_may_return_everything_is_refused_only_its_broken_values(monkeypatch):
    from hookconf.harness.generate import guest

    table = hook_effects()
    every = {f: s for allowed in table.values() for f, s in allowed["patches"].items()}
    monkeypatch.setattr(guest, "hook_effects", lambda: {**table, "beforeCreate": {
        "patches": every, "metadata": True}})
    found = _instances()
    assert "beforecreate.accepted" in found
    for invocation in found["beforecreate.refused"].given["invocations"]:
        effects = invocation["metadata"]["hookconf.exit"]
        assert not effects["metadataOperations"]
        assert not validate(EFFECTS_BY_HOOK["beforeCreate"], effects, direction="output").valid


def test_a_patch_field_without_a_chosen_value_gets_its_schemas_smallest():
    from hookconf.harness.generate.guest import _patch_value

    assert _patch_value("filename", {"type": "string"}) == "renamed.bin"
    assert _patch_value("priority", {"type": "integer", "minimum": 1}) == 1


def test_each_own_patch_field_is_also_sent_broken():
    """Every field a hook may patch comes back refused with a wrong type, and empty or over
    its byte limit where its schema says so (the path of ``beforeFinalize`` all three)."""
    found = _instances()
    keys = found["beforefinalize.refused"].notes
    for label in ("wrong type", "empty", "over limit"):
        assert f"a context patch of filePath, {label}" in keys
    for field in hook_effects()["beforeCreate"]["patches"]:
        assert f"a context patch of {field}, wrong type" in found["beforecreate.refused"].notes
