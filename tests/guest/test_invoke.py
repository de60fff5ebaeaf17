"""``run_plugin``: a plugin carried as manifest + source, run through a sequence of hooks."""

import json
from pathlib import Path

from hookconf.reference.guest.engine import PRELUDE
from hookconf.reference.guest.invoke import run_plugin
from hookconf.reference.schemas.examples import example

PLUGINS = Path(__file__).resolve().parents[2] / "hookconf" / "corpus" / "plugins"


def plugin(plugin_id):
    manifest = json.loads((PLUGINS / plugin_id / "motrix-plugin.json").read_text())
    return manifest, (PLUGINS / plugin_id / manifest["main"]).read_text()


def test_invocations_share_one_vm_and_logs_are_split_per_entry():
    context = example("BeforeFinalizeContextV1")
    done = run_plugin(*plugin("hookconf.hostile-update-after-exit"),
                      [{"hook": "beforeFinalize", "context": context}] * 2)
    assert done["activation"]["code"] is None
    first, second = done["results"]
    assert first["logs"] == []
    assert second["logs"][0]["fields"] == {"update": "plugin.hook.concurrent_protocol_violation",
                                           "metadata": "plugin.hook.concurrent_protocol_violation"}
    assert [p["filePath"] for p in second["effects"]["contextPatches"]] != ["/etc/owned"]


def test_activation_failure_returns_no_results():
    done = run_plugin(*plugin("hookconf.hostile-activation-effect"),
                      [{"hook": "beforeFinalize", "context": example("BeforeFinalizeContextV1")}])
    assert done["activation"]["code"] == "plugin.hook.permission_denied"
    assert done["results"] == []


def test_a_manifest_the_host_refuses_is_an_activation_failure():
    done = run_plugin({"id": "x"}, "", [])
    assert done["activation"]["code"] == "plugin.hook.worker_crashed"


def test_invalid_input_never_reaches_the_guest():
    context = example("BeforeFinalizeContextV1")
    del context["task"]
    done = run_plugin(*plugin("hookconf.sdk20-lifecycle"), [{"hook": "beforeFinalize", "context": context}])
    assert done["results"][0]["code"] == "plugin.hook.input_invalid"
    assert done["results"][0]["logs"] == []


def test_a_prelude_can_be_swapped_for_a_mutant_runtime():
    broken = PRELUDE.replace("data.set(key, jsonStringify(copy));", "")
    assert broken != PRELUDE
    done = run_plugin(*plugin("hookconf.sdk20-lifecycle"),
                      [{"hook": "beforeCreate", "context": example("BeforeCreateContextV1")}],
                      prelude=broken)
    # the fixture reads back what it wrote; with the write invisible it throws
    assert done["results"][0]["code"] == "plugin.hook.worker_crashed"
    assert done["results"][0]["reason"] == "guest_exception"


def test_the_network_is_played_from_the_request_and_refused_hops_never_leave():
    context = example("BeforeCreateContextV1")
    context["uris"] = ["https://wiki.media.example/wiki/File:Cat.jpg"]
    api = ("https://api.media.example/w/api.php?action=query&prop=imageinfo&iiprop=url"
           "&format=json&titles=File%3ACat.jpg")
    moved = [{"url": api, "status": 302, "location": "https://upload.media.example/moved"}]
    done = run_plugin(*plugin("hookconf.url-resolver"), [{"hook": "beforeCreate", "context": context}],
                      network=moved)
    result = done["results"][0]
    assert result["code"] == "plugin.http.host_not_permitted"
    assert result["requests"] == [api]
    answered = [{"url": api, "body": {"query": {"pages": {"1": {"imageinfo": [{"url": "https://u.example/f"}]}}}}}]
    done = run_plugin(*plugin("hookconf.url-resolver"), [{"hook": "beforeCreate", "context": context}],
                      network=answered)
    assert done["results"][0]["effects"]["contextPatches"] == [{"uris": ["https://u.example/f"]}]


def test_an_invocation_runs_at_the_permission_generation_it_names():
    context = example("BeforeFinalizeContextV1")
    forge = {"hookconf.forge": {"capability": "log", "generation": 2}}
    done = run_plugin(*plugin("hookconf.forged-generation"),
                      [{"hook": "beforeFinalize", "context": context, "metadata": forge},
                       {"hook": "beforeFinalize", "context": context, "metadata": forge,
                        "permissionGeneration": 2}])
    at_zero, at_two = done["results"]
    assert "forged generation" not in [r["message"] for r in at_zero["logs"]]  # 2 is not 0
    assert "forged generation" in [r["message"] for r in at_two["logs"]]  # the current generation acts


def test_the_abort_is_met_at_the_first_round_only_and_recorded_for_the_echo():
    from hookconf.reference.guest.invoke import _abort_at_first_round

    met: list[str] = []
    assert _abort_at_first_round(None, met) is None
    abort_when = _abort_at_first_round("shutdown", met)
    assert abort_when(1) is None and met == []
    assert str(abort_when(0)) == "shutdown" and met == ["shutdown"]
