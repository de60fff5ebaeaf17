"""A scripted subprocess candidate that misbehaves on purpose: ``candidate.py MODE [STATE]``.

Modes: ``ok`` (answers like a correct matcher for the mini corpus), ``crash`` (exits on every
request), ``crash-once`` (exits on its first request ever, using the STATE file to remember),
``hang`` (never answers a request), ``wrong-id``, ``garbage`` (prints non-JSON), ``bad-shape``
(a result that breaks its schema), ``bad-hello`` (an unusable handshake).

Hostile modes: ``crash-loud`` (4 KiB of stderr noise around the line that says what went
wrong, then exit 1), ``long-line`` (a 10 MiB reply line), ``stderr-flood`` (10 MiB of stderr
without a newline before each correct answer), ``deep-reply`` (a result nested 5,000 levels),
``surrogate-error`` (an error reply whose message holds a lone surrogate), ``bad-utf8``
(a reply line that is not UTF-8), ``no-read`` (answers the handshake, then never reads again).

Process modes (STATE is a file the fake writes ``<its pid> <child pid>`` to, after starting a
sleeping child in its own process group): ``bad-hello-spawn``, ``hang-spawn``,
``crash-spawn`` (exits on the first request, leaving the child), ``ok-spawn`` (answers like
``ok`` and exits at end of input, leaving the child).
"""

import json
import os
import subprocess
import sys
import time

TEN_MIB = 10 * 1024 * 1024


def answer(op, args):
    if op == "task_source.admit":
        return {"admitted": True}
    if op == "permissions.redirect":
        return {"allowed": not args["hops"][0].startswith("https://api.example.test.evil")}
    return {"match": not args["url"].startswith("https://api.example.test.evil")}


def spawn_child(state):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(state, "w") as handle:
        handle.write(f"{os.getpid()} {child.pid}")


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(mode, state=None):
    if mode.endswith("-spawn"):
        spawn_child(state)
        mode = mode.removesuffix("-spawn")
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            if mode == "bad-hello":
                reply({"id": 0, "ok": True, "result": {"name": "x"}})
                continue
            result = {"name": f"fake-{mode}", "version": "0", "protocol": 1, "families": ["permissions"]}
            reply({"id": 0, "ok": True, "result": result})
            if mode == "no-read":
                time.sleep(3600)
            continue
        if mode == "crash":
            sys.stderr.write("fake candidate: crashing on purpose\n")
            sys.exit(3)
        if mode == "crash-loud":
            for index in range(40):
                sys.stderr.write(f"noise line {index:03d} before the failure {'.' * 50}\n")
            sys.stderr.write("FakeError: the candidate lost its matcher table\n")
            for index in range(25):
                sys.stderr.write(f"noise line {index:03d} after the failure {'.' * 50}\n")
            sys.stderr.flush()
            sys.exit(1)
        if mode == "crash-once" and not os.path.exists(state):
            open(state, "w").close()
            sys.exit(4)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("this is not JSON", flush=True)
            continue
        if mode == "long-line":
            sys.stdout.write('{"id": ' + str(request["id"]) + ', "pad": "' + "x" * TEN_MIB + '"}\n')
            sys.stdout.flush()
            continue
        if mode == "bad-utf8":
            sys.stdout.buffer.write(b'{"id": %d, "ok": true, "result": {"match": "\xff"}}\n' % request["id"])
            sys.stdout.flush()
            continue
        if mode == "stderr-flood":
            sys.stderr.write("e" * TEN_MIB)
            sys.stderr.flush()
        if mode == "deep-reply":
            deep = "[" * 5000 + "]" * 5000
            sys.stdout.write(f'{{"id": {request["id"]}, "ok": true, "result": {{"match": {deep}}}}}\n')
            sys.stdout.flush()
            continue
        if mode == "surrogate-error":
            reply({"id": request["id"], "ok": False,
                   "error": {"code": "fake.lone_surrogate", "message": "bad \ud800 here"}})
            continue
        reply_id = request["id"] + 1000 if mode == "wrong-id" else request["id"]
        result = {"match": "yes"} if mode == "bad-shape" else answer(request["op"], request["args"])
        reply({"id": reply_id, "ok": True, "result": result})


if __name__ == "__main__":
    main(*sys.argv[1:])
