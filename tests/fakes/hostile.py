"""A subprocess candidate whose every word is hostile to the reports: ``hostile.py``.

It speaks protocol v1 correctly, but what it says is made to break report writers: Rich
markup (``[/bold]``, ``[red]x[/red]``), emoji codes (``:smile:``), HTML, terminal escape
sequences and other control characters, a lone surrogate (sent as the JSON escape
``\\ud800``) and, for one case, a single 10 MiB line.  Which answer it gives depends on the
case (``tests/data/hostile.json``), chosen by a word in the request:

- a URL holding ``error`` gets an ``ok: false`` reply whose message is the hostile text;
- ``huge``: an error reply of 10 MiB on one line (more than a protocol line may carry);
- ``big``: an error reply whose message is 4 MiB (within the line bound, so it reaches
  the reports);
- ``crash``: the hostile text on stderr, then exit 9;
- ``garbage``: a line that is not JSON, full of escapes;
- ``task_source.admit``: a refusal whose ``code`` and ``reason`` are hostile (a failure);
- anything else: a correct answer.
"""

import json
import sys

#: What every hostile answer says.  Written with JSON escapes so the surrogate survives.
HOSTILE = (
    "[/bold] [red]x[/red] :smile: <script>alert(1)</script> <b>bold</b> &amp; "
    "\x1b[31mred\x1b[0m \x00\x07\x08\x0b\x0c\r \x7f\x9b \ufffe \u202eevil \ud800 end"
)
HUGE_BYTES = 10 * 1024 * 1024
BIG_BYTES = 4 * 1024 * 1024
HELLO_NAME = "[/bold]<i>fake</i>:smile:\x1b[2J"


def send(message):
    # ensure_ascii: the lone surrogate travels as the escape "\ud800", as JSON allows
    sys.stdout.write(json.dumps(message, ensure_ascii=True) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        request = json.loads(line)
        rid, op, args = request["id"], request["op"], request.get("args", {})
        if op == "hello":
            send({"id": rid, "ok": True, "result": {
                "name": HELLO_NAME, "version": "[/]1", "protocol": 1, "families": ["permissions"]}})
            continue
        url = args.get("url") or (args.get("hops") or [""])[0]
        if op == "task_source.admit":
            send({"id": rid, "ok": True, "result": {
                "admitted": False, "code": "[/bold]<b>\x1b[31m\ud800", "reason": HOSTILE}})
        elif "huge" in url:
            send({"id": rid, "ok": False, "error": {"code": "x.huge", "message": "[/bold]" + "é" * HUGE_BYTES}})
        elif "big" in url:
            send({"id": rid, "ok": False, "error": {"code": "x.big", "message": "[/bold]" + "x" * BIG_BYTES}})
        elif "crash" in url:
            sys.stderr.write(HOSTILE + "\n")
            sys.stderr.flush()
            sys.exit(9)
        elif "garbage" in url:
            sys.stdout.buffer.write(b"[/bold] <b>\x1b[31m\xff\xfe not JSON\n")
            sys.stdout.flush()
        elif "error" in url:
            send({"id": rid, "ok": False, "error": {"code": "[/bold]:smile:", "message": HOSTILE}})
        else:
            send({"id": rid, "ok": True, "result": {"match": True, "allowed": True}})


if __name__ == "__main__":
    main()
