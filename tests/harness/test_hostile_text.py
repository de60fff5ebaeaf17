"""Untrusted text — a candidate's replies, errors and stderr, a case file's titles and values,
module names — reaches every report literally and safely, and the run always writes them all."""

import io
import json
import re
import sys
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from rich.console import Console

from hookconf.harness.report import REPORT_SCHEMA
from tests.conftest import ROOT
from tests.fakes.hostile import BIG_BYTES, HELLO_NAME, HOSTILE

HOSTILE_CORPUS = ROOT / "tests" / "data" / "hostile.json"
HOSTILE_CANDIDATE = f"cmd:{sys.executable} {ROOT / 'tests' / 'fakes' / 'hostile.py'}"
MARKUP = ("[/bold]", "[red]x[/red]", ":smile:")


#: one worker builds the module fixture below once (tox runs --dist loadgroup)
pytestmark = pytest.mark.xdist_group("hostile_text")


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    """One run of the hostile candidate writing every report; returns (code, out, err, paths)."""
    from hookconf.harness.cli import main

    folder = tmp_path_factory.mktemp("hostile")
    paths = {name: folder / name for name in ("report.json", "junit.xml", "report.html")}
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(["run", "-q", "--candidate", HOSTILE_CANDIDATE, "--no-embedded",
                     "--corpus", str(HOSTILE_CORPUS), "--timeout", "20",
                     "--json", str(paths["report.json"]), "--junit", str(paths["junit.xml"]),
                     "--html", str(paths["report.html"])])
    finally:
        sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue(), paths


def _case(report, case_id):
    return next(c for c in report["cases"] if c["id"] == case_id)


def test_hostile_candidate_run_finishes_and_writes_every_report(hostile_run):
    code, out, err, paths = hostile_run
    assert code == 1, err
    assert all(p.is_file() for p in paths.values())
    assert "NOT CONFORMANT" in out and "Traceback" not in err


def test_terminal_shows_markup_emoji_codes_and_escapes_literally(hostile_run):
    _, out, _, _ = hostile_run
    for literal in MARKUP:
        assert literal in out
    assert "<script>alert(1)</script>" in out
    assert "😄" not in out                      # :smile: stays a word
    assert "\x1b" not in out and "\x9b" not in out and "\x00" not in out  # nothing for the terminal to obey
    assert "\\x1b[31mred" in out and "\\ud800" in out and "\\u202e" in out  # but each is shown
    assert "[/bold]<i>fake</i>:smile:\\x1b[2J" in out  # the candidate's own name, literally


def test_terminal_trims_a_4_mib_message(hostile_run):
    _, out, _, _ = hostile_run
    assert len(out) < 100_000
    assert re.search(r"more characters\]", out)


def _escaped(text):
    """How the transport quotes a candidate's error text: a lone surrogate as its escape."""
    return text.replace("\ud800", "\\ud800")


def test_json_keeps_every_string_unchanged_in_meaning(hostile_run):
    _, _, _, paths = hostile_run
    report = json.loads(paths["report.json"].read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text())).validate(report)
    assert report["candidate"]["name"] == HELLO_NAME
    refused = _case(report, "hostile.admit.refused")
    assert refused["title"] == "[/bold] [red]x[/red] :smile: <script>alert(1)</script> \x1b[31m \ud800 title"
    assert refused["judgements"][0]["observed"]["code"] == "[/bold]<b>\x1b[31m\ud800"  # lone surrogates survive
    assert refused["judgements"][0]["detail"] == HOSTILE
    assert _escaped(_case(report, "hostile.match.error")["reason"]).endswith(_escaped(HOSTILE))
    assert _escaped(HOSTILE) in _escaped(_case(report, "hostile.match.crash")["reason"])  # stderr, through a crash
    assert _case(report, "hostile.match.big")["reason"].endswith("[/bold]" + "x" * BIG_BYTES)  # kept whole
    huge = _case(report, "hostile.match.huge")  # more than a protocol line may carry: refused, and said so
    assert huge["status"] == "errored" and huge["reason"].startswith("reply line is ")


def test_junit_is_well_formed_xml_with_unholdable_characters_shown(hostile_run):
    _, _, _, paths = hostile_run
    raw = paths["junit.xml"].read_bytes()
    root = ET.fromstring(raw)  # a strict XML 1.0 parser: any forbidden character fails here
    messages = " ".join(e.get("message") for e in root.iter("error"))
    assert "[/bold] [red]x[/red] :smile: <script>" in messages and "\\x00" in messages and "\\ud800" in messages
    failure = next(root.iter("failure"))
    assert "hostile.json#/5" in failure.text
    assert 'observed {"admitted": false, "code": "[/bold]<b>\\u001b[31m\\ud800"}' in failure.text


def test_html_escapes_everything_and_injects_no_element(hostile_run):
    _, _, _, paths = hostile_run
    page = paths["report.html"].read_text(encoding="utf-8")
    assert "<script" not in page and "<b>" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "[/bold] [red]x[/red] :smile:" in page
    assert "\x1b" not in page and "\\x1b[31mred" in page
    assert "more characters]" in page            # the 4 MiB message is trimmed, visibly
    assert len(page) < 1_000_000


def test_module_name_is_not_turned_into_an_emoji(capsys):
    from hookconf.harness.cli import main

    code = main(["run", "-q", "--candidate", "tests.no_such_module:factory", "--case", "perm.ipv6.1"])
    err = capsys.readouterr().err
    assert code == 3
    assert "tests.no_such_module:factory:" in err and "🏭" not in err


def test_markup_in_a_case_filter_is_printed_literally(capsys):
    from hookconf.harness.cli import main

    assert main(["run", "-q", "--case", "[/bold]"]) == 2
    assert "[/bold]" in capsys.readouterr().err


@pytest.mark.parametrize("broken", ["render_terminal", "write_junit", "write_json"])
def test_a_crashing_writer_never_loses_the_other_reports(monkeypatch, tmp_path, capsys, broken):
    from hookconf.harness import cli

    def crash(*args, **kwargs):
        raise RuntimeError("[/bold] writer broke")

    monkeypatch.setattr(cli, broken, crash)
    paths = {"--json": tmp_path / "r.json", "--junit": tmp_path / "j.xml", "--html": tmp_path / "r.html"}
    argv = ["run", "-q", "--candidate", HOSTILE_CANDIDATE, "--no-embedded", "--corpus", str(HOSTILE_CORPUS),
            "--case", "hostile.match.fine", "--case", "hostile.admit.refused"]
    for option, path in paths.items():
        argv += [option, str(path)]
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert "[/bold] writer broke" in err
    written = {option for option, path in paths.items() if path.exists()}
    expected_lost = {"write_junit": {"--junit"}, "write_json": {"--json"}}.get(broken, set())
    assert written == set(paths) - expected_lost


def test_visible_spells_out_what_a_terminal_or_xml_cannot_take():
    from hookconf.harness.report.text import visible

    assert visible("a\x1b[31mb") == "a\\x1b[31mb"
    assert visible("\x00\x7f\x9b\ud800\ufffe\u202e") == "\\x00\\x7f\\x9b\\ud800\\ufffe\\u202e"
    assert visible("a\tb\nc\r") == "a\\tb\\nc\\r"
    assert visible("a\tb\nc", multiline=True) == "a\tb\nc"
    assert visible("[/bold] <b> :smile: é 😀") == "[/bold] <b> :smile: é 😀"


def test_dumps_report_round_trips_lone_surrogates_and_writes_non_finite_as_markers():
    from hookconf.harness.report.text import dumps_report

    data = {"s": "x\ud800y", "n": [float("nan"), float("inf"), -float("inf"), 1.5]}
    text = dumps_report(data)
    text.encode("utf-8")  # would raise on a raw lone surrogate
    back = json.loads(text)
    assert back["s"] == "x\ud800y"
    assert back["n"] == [{"$nonfinite": "NaN"}, {"$nonfinite": "Infinity"}, {"$nonfinite": "-Infinity"}, 1.5]


def test_terminal_render_of_hostile_title_does_not_raise():
    from hookconf.harness.report.terminal import _untrusted

    console = Console(file=io.StringIO(), width=80, emoji=True)  # even a console with emoji on
    console.print(_untrusted("[/bold] :smile: \ud800"))
    assert console.file.getvalue().startswith("[/bold] :smile: \\ud800")
