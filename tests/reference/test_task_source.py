"""The reference §9.4 task-source policy and the beforeFinalize source identity."""

import pytest

from hookconf.reference.errors import ErrorCode
from hookconf.reference.permissions.task_source import admit, admit_patch, is_private_host
from hookconf.reference.schemas import validate
from hookconf.reference.schemas.source_identity import expected_bt_source


@pytest.mark.parametrize(("host", "private"), [
    ("127.0.0.1", True), ("[::1]", True), ("10.255.0.1", True), ("172.16.0.1", True),
    ("172.31.255.255", True), ("192.168.0.1", True), ("169.254.169.254", True),
    ("[fe80::1]", True), ("[::ffff:a00:1]", True), ("localhost", True), ("a.localhost.", True),
    ("172.15.255.255", False), ("172.32.0.0", False), ("169.253.255.255", False),
    ("192.169.0.1", False), ("93.184.215.14", False), ("example.org", False),
    ("localhost.example.org", False), ("[2606:4700::1111]", False),
])
def test_private_hosts_are_the_loopback_private_and_link_local_space(host, private):
    assert is_private_host(host) is private


def test_only_a_remote_operator_is_kept_off_the_private_network():
    assert admit("http://192.168.1.10/f").admitted
    refused = admit("http://3232235786/f", operator="remote")  # 192.168.1.10 once parsed
    assert (refused.admitted, refused.code) == (False, ErrorCode.OUTPUT_INVALID)
    assert admit("https://upload.wikimedia.org/x.jpg", operator="remote").admitted


def test_every_returned_url_of_a_patch_is_admitted_and_the_refused_one_named():
    ok = ["https://a.example.org/f", "https://b.example.org/f"]
    assert admit_patch({"uris": ok}) == (admit(ok[0]), "")
    decision, field = admit_patch({"uris": [*ok, "https://u:p@c.example.org/f"]})
    assert (decision.admitted, field) == (False, "/uris/2")
    assert admit_patch({"uris": []})[1] == "/uris"
    assert not admit_patch({"uris": ["https://a.example.org/"] * 129})[0].admitted
    assert admit_patch({"uris": ["https://a.example.org/"] * 128})[0].admitted
    assert admit_patch({"filename": "f.bin"})[0].admitted  # returns no URL


def _context(task_type, info_hash, source):
    task = {"schemaVersion": 1, "id": "task-0042", "name": "f", "type": task_type, "kind": "bt",
            "status": "finalizing", "filePath": "/d/f", "saveDir": "/d", "filename": "f",
            "progress": 100, "totalBytes": 1, "downloadedBytes": 1, "uploadedBytes": 0,
            "sizeWhenDone": 1, "fileCount": 1, "createdAt": 1, "updatedAt": 2, "finishedAt": None,
            "category": None, "infoHash": info_hash, "error": None}
    return {"schemaVersion": 1, "invocationId": "i", "taskId": "task-0042", "sourceUrl": source,
            "createdBy": "user", "requestedAt": 1, "task": task, "inputFilePath": "/d/f",
            "filePath": "/d/f", "targetFilePath": "/d/f"}


def test_a_bt_source_crosses_only_as_its_canonical_identity():
    hex_hash = "c12fe1c06bba254a9dc9f519b335aa7c1367a88a"
    assert expected_bt_source("task-0042", hex_hash) == f"urn:btih:{hex_hash}"
    assert expected_bt_source("task-0042", None) == "urn:motrix:bt:dGFzay0wMDQy"
    assert validate("BeforeFinalizeContextV1", _context("magnet", hex_hash, f"urn:btih:{hex_hash}")).valid
    raw = f"magnet:?xt=urn:btih:{hex_hash}&tr=https%3A%2F%2Ft.example%2Fa%3Fpasskey%3Dx"
    refused = validate("BeforeFinalizeContextV1", _context("magnet", hex_hash, raw))
    assert (refused.valid, refused.code, refused.path) == (False, ErrorCode.INPUT_INVALID, "/sourceUrl")
    context = _context("bt", None, "/home/u/f.torrent")
    enter = {"type": "event", "event": "hookEnter", "invocationId": context["invocationId"],
             "callChainId": "chain-1", "permissionGeneration": 1, "taskId": context["taskId"],
             "hook": "beforeFinalize", "ctxPayload": context, "metadataSnapshot": {}}
    assert validate("HookEnterMessageV1", enter).path == "/ctxPayload/sourceUrl"
    assert validate("BeforeFinalizeContextV1", _context("ftp", None, "ftp://h/f")).valid
