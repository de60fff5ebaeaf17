"""§6 candidate discovery: six rules, the registry not the active set (H1), no host filter
for finalize and post-hooks (H18)."""

from hookconf.reference.runtime.discovery import Task, activation_matches, discover
from hookconf.reference.runtime.registry import Manifest, PluginRegistry, PolicyChange, engine_compatible
from tests.runtime.helpers import manifest


def registry(*manifests, **grants):
    reg = PluginRegistry()
    for m in manifests:
        reg.install(Manifest.from_json(m))
    return reg


HTTP = Task("t1", "http", "https://media.example/file")
FTP = Task("t2", "ftp", "ftp://files.example/pub/a.iso")
MAGNET = Task("t3", "magnet", "magnet:?xt=urn:btih:" + "a" * 40)


def ids(cands):
    return [c.plugin_id for c in cands]


def test_orders_by_role_band_then_plugin_id():
    reg = registry(
        manifest("z.audit", {"beforeCreate": "audit"}),
        manifest("b.enrich", {"beforeCreate": "enrich"}),
        manifest("a.enrich", {"beforeCreate": "enrich"}),
        manifest("y.pre", {"beforeCreate": "pre-resolve"}),
        manifest("c.post", {"beforeCreate": "post-process"}),
        manifest("x.resolve", {"beforeCreate": "resolve"}),
    )
    assert ids(discover(reg, "beforeCreate", HTTP)) == [
        "y.pre", "x.resolve", "a.enrich", "b.enrich", "c.post", "z.audit"]


def test_http_before_create_resolver_needs_a_matching_host_permission():
    reg = registry(manifest("a.match", {"beforeCreate": "resolve"}, host=("*://media.example/*",)),
                   manifest("b.other", {"beforeCreate": "resolve"}, host=("*://other.example/*",)))
    assert ids(discover(reg, "beforeCreate", HTTP)) == ["a.match"]


def test_finalize_and_post_hooks_ignore_host_permissions_for_non_http_tasks():
    any_type = ("onTaskType:http", "onTaskType:ftp", "onTaskType:magnet")
    reg = registry(
        manifest("a.fin", {"beforeFinalize": "pre-resolve", "afterComplete": "audit",
                           "onError": "audit"}, host=("*://nowhere.example/*",), activation=any_type))
    for task in (FTP, MAGNET, HTTP):
        for hook in ("beforeFinalize", "afterComplete", "onError"):
            assert ids(discover(reg, hook, task)) == ["a.fin"], (hook, task.type)


def test_activation_events_select_task_type_or_url_protocol():
    assert activation_matches(("onTaskType:ftp",), FTP)
    assert activation_matches(("onUrlProtocol:ftp",), FTP)
    assert activation_matches(("*",), MAGNET)
    assert not activation_matches(("onTaskType:http",), FTP)
    reg = registry(manifest("a.http", {"beforeFinalize": "enrich"}))
    assert ids(discover(reg, "beforeFinalize", FTP)) == []


def test_disabled_quarantined_incompatible_undeclared_bad_role_and_ungranted_are_not_candidates():
    reg = registry(
        manifest("a.ok", {"beforeFinalize": "enrich"}),
        manifest("b.disabled", {"beforeFinalize": "enrich"}),
        manifest("c.quarantined", {"beforeFinalize": "enrich"}),
        manifest("d.incompatible", {"beforeFinalize": "enrich"}, engines=">=3.0.0"),
        manifest("e.undeclared", {"afterComplete": "enrich"}),
        manifest("f.badrole", {"beforeFinalize": "overlord"}),
        manifest("g.revoked", {"beforeFinalize": "enrich"}, permissions=("http",)),
    )
    reg.publish("b.disabled", PolicyChange("disable"))
    reg.publish("c.quarantined", PolicyChange("quarantine"))
    reg.publish("g.revoked", PolicyChange("revoke", "http"))
    assert ids(discover(reg, "beforeFinalize", HTTP)) == ["a.ok"]


def test_generation_is_monotonic_across_plugins_and_changes():
    reg = registry(manifest("a", {"beforeCreate": "resolve"}), manifest("b", {"beforeCreate": "resolve"}))
    seen = [reg.generation("a"), reg.generation("b")]
    seen.append(reg.advance_generation("a")[1])
    seen.append(reg.advance_generation("b")[1])
    assert seen == sorted(seen) and len(set(seen)) == 4


def test_engine_ranges():
    assert engine_compatible(">=2.0.0") and engine_compatible("^2.1.0") and engine_compatible(">=2 <3")
    assert not engine_compatible(">=3.0.0") and not engine_compatible("^1.0.0")
    assert not engine_compatible("whatever")
