"""The well-behaved guest fixtures, each in its own worker process (§9.4, §14)."""

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest import HttpResponse, PluginState

from .conftest import json_response

MEDIA_API = ("https://api.media.example/w/api.php?action=query&prop=imageinfo&iiprop=url"
             "&format=json&titles=File%3ACat.jpg")


def test_sdk20_plugin_runs_all_four_hooks_without_delivery(host, contexts):
    with host.vm("hookconf.sdk20-lifecycle") as vm:
        create = vm.invoke("beforeCreate", contexts["beforeCreate"])
        finalize = vm.invoke("beforeFinalize", contexts["beforeFinalize"],
                             metadata={"firstSeen": {"url": "u"}})
        complete = vm.invoke("afterComplete", contexts["afterComplete"],
                             metadata={"finalizedName": "file.bin"})
        error = vm.invoke("onError", contexts["onError"])
        assert vm.activations == 1 and vm.state is PluginState.ACTIVE
    assert create.effects == {
        "contextPatches": [{"filename": "sdk20-download.bin"}],
        "metadataOperations": [{"op": "set", "key": "firstSeen", "value": {
            "url": "https://example.test/file.bin", "at": 1767225600000}}]}
    assert host.log("beforeCreate").fields["readAfterWrite"] is True
    assert finalize.effects["contextPatches"] == [{"filePath": "/downloads/sdk20-file.bin"}]
    assert host.log("beforeFinalize").fields["methods"] == [
        "delete", "get", "getAll", "has", "keys", "set"]
    assert complete.ok and error.ok
    assert host.log("afterComplete").fields["methods"] == ["get", "getAll", "has", "keys"]
    assert host.log("onError").fields == {"code": "engine.http_404", "taskStatus": "error"}


def test_sdk21_plugin_reads_delivery_id_and_deduplicates_with_it(host, contexts):
    with host.vm("hookconf.sdk21-delivery") as vm:
        first = vm.invoke("afterComplete", contexts["afterComplete"])
        retry = vm.invoke("afterComplete", contexts["afterComplete"])
    assert first.ok and retry.ok and first.invocation_id != retry.invocation_id
    assert host.log("delivered").fields == {
        "deliveryId": "dlv-1", "occurrenceId": "occ-1", "occurredAt": 1767225660000,
        "schemaVersion": 1, "kind": "complete"}
    assert host.log("duplicate delivery skipped").fields["deliveryId"] == "dlv-1"
    stored = host.storage.call("hookconf.sdk21-delivery", "get", ["delivered:dlv-1"])
    assert stored == {"value": {"kind": "complete", "occurrenceId": "occ-1"}, "version": 1}


def test_url_resolver_calls_the_api_host_and_returns_a_url_on_another_host(host, contexts):
    host.transport.routes[MEDIA_API] = json_response(
        {"query": {"pages": {"7": {"imageinfo": [
            {"url": "https://upload.media.example/a/ab/Cat.jpg"}]}}}})
    context = contexts["beforeCreate"]
    context["uris"] = ["https://wiki.media.example/wiki/File:Cat.jpg"]
    with host.vm("hookconf.url-resolver") as vm:
        outcome = vm.invoke("beforeCreate", context)
    assert outcome.ok, outcome
    assert outcome.effects["contextPatches"] == [
        {"uris": ["https://upload.media.example/a/ab/Cat.jpg"]}]
    assert [r.url for r in host.transport.seen] == [MEDIA_API]


def test_url_resolver_cannot_follow_a_redirect_off_its_api_host(host, contexts):
    host.transport.routes[MEDIA_API] = HttpResponse(
        302, location="https://upload.media.example/api-moved")
    context = contexts["beforeCreate"]
    context["uris"] = ["https://wiki.media.example/wiki/File:Cat.jpg"]
    with host.vm("hookconf.url-resolver") as vm:
        outcome = vm.invoke("beforeCreate", context)
    assert outcome.code is ErrorCode.HOST_NOT_PERMITTED
    assert [r.url for r in host.transport.seen] == [MEDIA_API]


def test_filename_template_renders_nested_metadata_keys(host, contexts):
    metadata = {"site": "media", "show": {"title": "Cats/Dogs", "episode": "S01E02"}}
    with host.vm("hookconf.filename-template") as vm:
        outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"], metadata=metadata)
        untouched = vm.invoke("beforeFinalize", contexts["beforeFinalize"], metadata={})
    assert outcome.effects == {"contextPatches": [
        {"filePath": "/downloads/media/Cats_Dogs - S01E02.bin"}], "metadataOperations": []}
    assert host.log("rendered").fields["target"] == "/downloads/media/Cats_Dogs - S01E02.bin"
    assert untouched.effects == {"contextPatches": [], "metadataOperations": []}
