"""The SDK surface seen by guest code (§9.3, §9.5, §14; H7), run in-process for speed."""

import json

import pytest

from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest import AbortReason, HttpResponse, PluginState, PluginVm

from .conftest import FAST, FakeTransport


def inline(tmp_path, host, script, *, hooks=None, permissions=(), host_permissions=("*://*/*",),
           isolation="inprocess", **options) -> PluginVm:
    hooks = hooks or {"beforeCreate": "enrich", "beforeFinalize": "enrich",
                      "afterComplete": "audit", "onError": "audit"}
    manifest = {"manifestVersion": 1, "id": "hookconf.inline", "name": "inline", "version": "1.0.0",
                "description": "x", "categories": ["productivity"],
                "engines": {"motrix": ">=2.0.0"}, "main": "plugin.js",
                "permissions": list(permissions), "hostPermissions": list(host_permissions),
                "activationEvents": ["onTaskType:http"],
                "contributes": {"hooks": {h: {"role": r} for h, r in hooks.items()}}}
    (tmp_path / "motrix-plugin.json").write_text(json.dumps(manifest))
    (tmp_path / "plugin.js").write_text(
        "import { hooks, log, storage, http } from 'motrix:plugin-api'\n" + script)
    options.setdefault("budgets", FAST)
    return PluginVm.load(tmp_path, storage=host.storage, log_sink=host.logs.append,
                         clock=host.clock, ids=host.ids, isolation=isolation, **options)


ALL_HOOKS = """
for (const name of ['beforeCreate', 'beforeFinalize', 'afterComplete', 'onError']) {
  hooks[name](async (ctx) => BODY)
}
"""


def test_pre_hook_metadata_has_six_methods_with_read_after_write(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async (ctx) => {
  const m = ctx.metadata
  const seen = { methods: Object.keys(m).sort(), before: m.get('a') }
  m.set('a', { b: [1, 2] })
  const copy = m.get('a'); copy.b.push(3)
  seen.afterSet = m.get('a'); seen.has = m.has('a'); seen.keys = m.keys()
  m.delete('old'); seen.hasOld = m.has('old'); seen.all = m.getAll()
  m.set('a', 'final')
  log.info('md', seen)
})""", hooks={"beforeFinalize": "enrich"})
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"],
                        metadata={"old": 1, "a": "start"})
    assert outcome.ok, outcome
    fields = host.log("md").fields
    assert fields["methods"] == ["delete", "get", "getAll", "has", "keys", "set"]
    assert fields["before"] == "start"
    assert fields["afterSet"] == {"b": [1, 2]}, "get returns a copy; staged write is visible"
    assert (fields["has"], fields["hasOld"]) == (True, False)
    assert fields["all"] == {"a": {"b": [1, 2]}}
    assert outcome.effects["metadataOperations"] == [
        {"op": "delete", "key": "old"}, {"op": "set", "key": "a", "value": "final"}]


@pytest.mark.parametrize("hook", ["afterComplete", "onError"])
def test_post_hook_metadata_has_only_four_readonly_methods(tmp_path, host, contexts, hook):
    vm = inline(tmp_path, host, ALL_HOOKS.replace("BODY", """log.info('surface', {
      methods: Object.keys(ctx.metadata).sort(), set: typeof ctx.metadata.set,
      update: typeof ctx.update, frozen: Object.isFrozen(ctx.metadata),
      value: ctx.metadata.get('k') })"""))
    outcome = vm.invoke(hook, contexts[hook], metadata={"k": [1]})
    assert outcome.ok and outcome.effects == {"contextPatches": [], "metadataOperations": []}
    assert host.log("surface").fields == {"methods": ["get", "getAll", "has", "keys"],
                                          "set": "undefined", "update": "undefined",
                                          "frozen": True, "value": [1]}


def test_update_is_recorded_as_data_and_visible_to_the_guest(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeCreate(async (ctx) => {
  ctx.update({ uris: ['https://cdn.example.test/f'] })
  ctx.update({ filename: 'x.bin' })
  let nan = 'accepted'
  try { ctx.update({ connections: NaN }) } catch (e) { nan = e.name }
  log.info('visible', { uris: ctx.uris, filename: ctx.filename, nan })
})""", hooks={"beforeCreate": "resolve"})
    outcome = vm.invoke("beforeCreate", contexts["beforeCreate"])
    assert outcome.effects["contextPatches"] == [{"uris": ["https://cdn.example.test/f"]},
                                                 {"filename": "x.bin"}]
    assert host.log("visible").fields == {"uris": ["https://cdn.example.test/f"],
                                          "filename": "x.bin", "nan": "TypeError"}


def test_patch_of_a_field_the_hook_cannot_mutate_is_output_invalid(tmp_path, host, contexts):
    vm = inline(tmp_path, host, "hooks.beforeCreate(async (ctx) => { ctx.update({ saveDir: '/' }) })",
                hooks={"beforeCreate": "resolve"})
    outcome = vm.invoke("beforeCreate", contexts["beforeCreate"])
    assert (outcome.code, outcome.effects) == (ErrorCode.OUTPUT_INVALID, None)
    assert outcome.reason.startswith("/effects/contextPatches/0/saveDir")


def test_sdk20_return_value_is_ignored_effects_come_from_update(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async (ctx) => { ctx.filePath = '/ignored'; return { filePath: '/also' } })""",
                hooks={"beforeFinalize": "enrich"})
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.effects == {"contextPatches": [], "metadataOperations": []}


def test_url_global_uses_the_whatwg_parser(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async () => {
  const u = new URL('../c?d=1#f', 'HTTPS://BÜCHER.example:443/a/b')
  let invalid = null
  try { new URL('http://[::1') } catch (e) { invalid = e.name }
  log.info('url', { href: u.href, host: u.host, port: u.port, pathname: u.pathname,
    search: u.search, hash: u.hash, origin: u.origin, json: JSON.stringify({ u }),
    canParse: [URL.canParse('x'), URL.canParse('x', 'https://a/')], invalid })
})""", hooks={"beforeFinalize": "enrich"})
    assert vm.invoke("beforeFinalize", contexts["beforeFinalize"]).ok
    assert host.log("url").fields == {
        "href": "https://xn--bcher-kva.example/c?d=1#f", "host": "xn--bcher-kva.example",
        "port": "", "pathname": "/c", "search": "?d=1", "hash": "#f",
        "origin": "https://xn--bcher-kva.example",
        "json": '{"u":"https://xn--bcher-kva.example/c?d=1#f"}',
        "canParse": [False, True], "invalid": "TypeError"}


def test_ungranted_capability_rejects_with_permission_denied(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async () => {
  let code = null
  try { await storage.set('k', 1) } catch (e) { code = e.code }
  log.info('denied', { code, available: storage.available, http: http.available })
})""", hooks={"beforeFinalize": "enrich"})
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.ok
    assert host.log("denied").fields == {"code": "plugin.hook.permission_denied",
                                         "available": False, "http": False}
    assert host.storage.call("hookconf.inline", "keys", []) == []


def test_registering_outside_activation_throws(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async () => {
  let code = null
  try { hooks.onError(async () => {}) } catch (e) { code = e.code }
  log.info('late', { code })
})""", hooks={"beforeFinalize": "enrich"})
    vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert host.log("late").fields == {"code": "plugin.hook.permission_denied"}


@pytest.mark.parametrize("reason,code", [
    (AbortReason.TASK_CANCELLED, ErrorCode.WORKER_CRASHED),
    (AbortReason.GENERATION_CHANGED, ErrorCode.PERMISSION_GENERATION_STALE),
])
def test_abort_event_is_queued_before_pending_calls_reject(host, contexts, reason, code):
    vm = host.vm("hookconf.signal-probe", isolation="inprocess")
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"],
                        abort_when=lambda round_number: reason)
    assert (outcome.code, outcome.aborted) == (code, str(reason))
    assert host.log("abort-order").fields == {
        "order": ["onabort:true", "listener", f"rejected:{reason}"],
        "later": str(reason), "reason": str(reason)}
    assert [r.url for r in host.transport.seen] == ["https://slow.example/never"], \
        "a capability call after abort never reaches the host"


def test_idle_guest_is_aborted_with_timeout(host, contexts):
    vm = host.vm("hookconf.signal-probe", isolation="inprocess")
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert (outcome.code, outcome.aborted) == (ErrorCode.TIMEOUT, "timeout")
    assert host.log("abort-order").fields["order"][-1] == "rejected:timeout"


def test_invalid_input_never_enters_or_activates_the_guest(host, contexts):
    vm = host.vm("hookconf.sdk20-lifecycle", isolation="inprocess")
    context = contexts["beforeFinalize"]
    context["task"]["status"] = "done"
    outcome = vm.invoke("beforeFinalize", context)
    assert (outcome.code, outcome.reason.split(":")[0]) == (ErrorCode.INPUT_INVALID,
                                                            "/ctxPayload/task/status")
    assert vm.state is PluginState.INACTIVE and host.logs == []


def test_oversized_metadata_snapshot_is_input_invalid(host, contexts):
    vm = host.vm("hookconf.sdk20-lifecycle", isolation="inprocess")
    outcome = vm.invoke("afterComplete", contexts["afterComplete"],
                        metadata={"k" * 129: 1})
    assert outcome.code is ErrorCode.INPUT_INVALID


def test_the_host_binds_the_invocation_id_into_the_context(tmp_path, host, contexts):
    vm = inline(tmp_path, host, "hooks.onError(async (ctx) => log.info('id', { id: ctx.invocationId }))",
                hooks={"onError": "audit"})
    outcome = vm.invoke("onError", contexts["onError"], invocation_id="inv-chosen")
    assert outcome.invocation_id == "inv-chosen"
    assert host.log("id").fields == {"id": "inv-chosen"}


def test_undeclared_and_unregistered_hooks(tmp_path, host, contexts):
    vm = inline(tmp_path, host, "hooks.beforeFinalize(async () => {})",
                hooks={"beforeFinalize": "enrich", "onError": "audit"})
    assert vm.invoke("afterComplete", contexts["afterComplete"]).code is ErrorCode.NOT_REGISTERED
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.code is ErrorCode.NOT_REGISTERED and "activation failed" in outcome.reason
    assert vm.state is PluginState.FAULTED


def test_guest_exception_fails_the_invocation_but_keeps_the_vm(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
let calls = 0
hooks.beforeFinalize(async (ctx) => {
  calls++
  if (calls === 1) throw new Error('boom ' + 'x'.repeat(20000))
  log.info('second', { calls })
})""",
                hooks={"beforeFinalize": "enrich"})
    first = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert (first.code, first.reason, first.vm_discarded) == (
        ErrorCode.WORKER_CRASHED, "guest_exception", False)
    assert first.guest_error["message"].startswith("boom") and "stack" not in first.guest_error
    assert vm.invoke("beforeFinalize", contexts["beforeFinalize"]).ok
    assert host.log("second").fields == {"calls": 2} and vm.activations == 1


def test_http_through_the_bridge_follows_checked_redirects(tmp_path, host, contexts):
    transport = FakeTransport({
        "https://api.test/a": HttpResponse(302, location="https://api.test/b"),
        "https://api.test/b": HttpResponse(200, body="done"),
        "https://api.test/escape": HttpResponse(302, location="https://elsewhere.test/"),
    })
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async () => {
  const ok = await http.get('https://api.test/a')
  let escape = null
  try { await http.get('https://api.test/escape') } catch (e) { escape = e.code }
  log.info('http', { body: ok.body, redirected: ok.redirected, finalUrl: ok.finalUrl, escape })
})""", hooks={"beforeFinalize": "enrich"}, permissions=("http",),
                host_permissions=("*://api.test/*",), transport=transport)
    assert vm.invoke("beforeFinalize", contexts["beforeFinalize"]).ok
    assert host.log("http").fields == {"body": "done", "redirected": True,
                                       "finalUrl": "https://api.test/b",
                                       "escape": "plugin.http.host_not_permitted"}
    assert [r.url for r in transport.seen] == ["https://api.test/a", "https://api.test/b",
                                               "https://api.test/escape"]


def test_url_with_a_lone_surrogate_is_usv_converted_and_the_vm_stays_healthy(tmp_path, host, contexts):
    vm = inline(tmp_path, host, r"""
hooks.beforeFinalize(async () => {
  const odd = new URL('https://a.test/\ud800').pathname
  log.info('usv', { odd, after: new URL('https://b.test/x').href })
})""", hooks={"beforeFinalize": "enrich"})
    assert vm.invoke("beforeFinalize", contexts["beforeFinalize"]).ok
    assert host.log("usv").fields == {"odd": "/%EF%BF%BD", "after": "https://b.test/x"}


def test_a_guest_replacing_json_cannot_change_what_the_prelude_sends(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async (ctx) => {
  JSON.stringify = () => '{"type":"event","event":"hookExit","invocationId":"someone-else"}'
  JSON.parse = () => ({})
  ctx.metadata.set('k', [1, 2])
  log.info('json', { got: ctx.metadata.get('k') })
})""", hooks={"beforeFinalize": "enrich"})
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.ok, outcome
    assert outcome.effects["metadataOperations"] == [{"op": "set", "key": "k", "value": [1, 2]}]
    assert host.log("json").fields == {"got": [1, 2]}


CONTEXT_SCHEMAS = {"beforeCreate": "BeforeCreateHttpContextV1",
                   "beforeFinalize": "BeforeFinalizeContextV1",
                   "afterComplete": "AfterCompleteContextV1", "onError": "OnErrorContextV1"}


@pytest.mark.parametrize("hook", sorted(CONTEXT_SCHEMAS))
def test_worker_context_object_has_the_sdk_fields_plus_its_wrappers(tmp_path, host, contexts, hook):
    from tests.schemas.test_field_parity import SDK_21

    vm = inline(tmp_path, host, ALL_HOOKS.replace(
        "BODY", "{ ctx.update && ctx.update({}); log.info('keys', { keys: Object.keys(ctx) }) }"))
    context = contexts[hook]
    if hook == "beforeCreate":
        context.update(filename="f.bin", connections=4, proxy="http://proxy.test:3128")
    outcome = vm.invoke(hook, context)
    assert outcome.ok and outcome.effects["contextPatches"] == []
    wrappers = {"metadata", "signal"} | ({"update"} if hook in ("beforeCreate", "beforeFinalize")
                                        else set())
    assert set(host.log("keys").fields["keys"]) == SDK_21[CONTEXT_SCHEMAS[hook]] | wrappers


def test_a_message_flood_fails_the_invocation_before_the_host_handles_it(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async () => { for (let i = 0; i < 5000; i++) log.info('flood ' + i) })""",
                hooks={"beforeFinalize": "enrich"})
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert (outcome.code, outcome.reason, outcome.vm_discarded) == (
        ErrorCode.WORKER_CRASHED, "message_flood", True)
    assert host.logs == []


def test_a_hostile_thrown_value_still_produces_a_bounded_exit(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.onError(async () => {
  throw { get code() { throw new Error('no') }, toString() { throw new Error('no') },
          get message() { throw new Error('no') } }
})""", hooks={"onError": "audit"})
    outcome = vm.invoke("onError", contexts["onError"])
    assert (outcome.code, outcome.reason) == (ErrorCode.WORKER_CRASHED, "guest_exception")
    assert outcome.guest_error["message"] == "unprintable error"
    assert outcome.aborted is None, "the exit came on its own, not after a timeout abort"


@pytest.mark.parametrize("junk,code", [
    ("42", ErrorCode.CONCURRENT_PROTOCOL_VIOLATION),
    ("{ type: 'call' }", ErrorCode.CONCURRENT_PROTOCOL_VIOLATION),
    ("{ type: 'call', id: -1, invocationId: ctx.invocationId, callChainId: ctx.invocationId, "
     "permissionGeneration: 0, capability: 'log', method: 'info', args: [] }",
     ErrorCode.OUTPUT_INVALID),
    ("{ type: 'event', event: 'hookExit', invocationId: ctx.invocationId, "
     "callChainId: ctx.invocationId, permissionGeneration: 0, ok: true, effects: { "
     "schemaVersion: 1, contextPatches: [{ filePath: '' }], metadataOperations: [] } }",
     ErrorCode.OUTPUT_INVALID),
    ("{ type: 'event', event: 'hookExit', invocationId: ctx.invocationId, "
     "callChainId: ctx.invocationId, permissionGeneration: 0, ok: true, effects: { "
     "contextPatches: [], metadataOperations: [] } }", ErrorCode.OUTPUT_INVALID),
    ("{ type: 'event', event: 'hookExit', invocationId: ctx.invocationId, "
     "callChainId: 'another-chain', permissionGeneration: 0, ok: true, effects: { "
     "schemaVersion: 1, contextPatches: [], metadataOperations: [] } }",
     ErrorCode.CONCURRENT_PROTOCOL_VIOLATION),
])
def test_junk_on_the_raw_worker_port_fails_closed(tmp_path, host, contexts, junk, code):
    vm = inline(tmp_path, host, f"""
hooks.beforeFinalize(async (ctx) => {{
  globalThis.__motrixHost.post({junk})
  await new Promise(() => {{}})
}})""", hooks={"beforeFinalize": "enrich"})
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.code is code and outcome.effects is None


def test_arguments_beyond_the_limits_reject_only_that_call(tmp_path, host, contexts):
    vm = inline(tmp_path, host, """
hooks.beforeFinalize(async () => {
  let deep = 1
  for (let i = 0; i < 20; i++) deep = { a: deep }
  log.info('deep', deep)
  let code = null
  try { await storage.set('k', deep) } catch (e) { code = e.code }
  log.info('after', { code })
})""", hooks={"beforeFinalize": "enrich"}, permissions=("storage",))
    outcome = vm.invoke("beforeFinalize", contexts["beforeFinalize"])
    assert outcome.ok, outcome
    assert [r.message for r in host.logs] == ["after"]
    assert host.log("after").fields == {"code": "plugin.hook.output_invalid"}
