"""The §13 taxonomy: exactly the codes the spec lists, spelled as the spec spells them."""

from pathlib import Path

from hookconf.reference.errors import ErrorCode

SECTION_13 = {
    "plugin.hook.input_invalid", "plugin.hook.output_invalid", "plugin.hook.not_registered",
    "plugin.hook.timeout", "plugin.hook.worker_crashed", "plugin.hook.permission_denied",
    "plugin.http.host_not_permitted", "plugin.hook.concurrent_protocol_violation",
    "plugin.runtime.reentrant_call", "plugin.runtime.permission_generation_stale",
    "plugin.finalize.plan_invalid", "plugin.finalize.target_exists",
    "plugin.finalize.staging_invalid", "plugin.finalize.artifact_too_large",
    "plugin.finalize.file_commit_failed", "plugin.finalize.db_commit_failed",
    "plugin.finalize.recovery_quarantined", "plugin.post.retryable", "plugin.post.permanent",
    "plugin.post.admission_rejected", "plugin.post.dead_letter",
}


def test_error_codes_equal_section_13():
    assert {code.value for code in ErrorCode} == SECTION_13


def test_case_schema_accepts_exactly_the_section_13_codes():
    import json

    schema = json.loads((Path(__file__).parents[2] / "hookconf/corpus/schema/case.schema.json").read_text())
    assert set(schema["$defs"]["errorCode"]["enum"]) == SECTION_13
