"""A scripted subprocess candidate that misbehaves on purpose: ``candidate.py MODE [STATE]``.

Modes: ``ok`` (answers like a correct matcher for the mini corpus), ``crash`` (exits on every
request), ``crash-once`` (exits on its first request ever, using the STATE file to remember),
``hang`` (never answers a request), ``wrong-id``, ``garbage`` (prints non-JSON), ``bad-shape``
(a result that breaks its schema), ``bad-hello`` (an unusable handshake).
"""

import json
import os
import sys
import time


def answer(op, args):
    if op == "task_source.admit":
        return {"admitted": True}
    if op == "permissions.redirect":
        return {"allowed": not args["hops"][0].startswith("https://api.example.test.evil")}
    return {"match": not args["url"].startswith("https://api.example.test.evil")}


def main(mode, state=None):
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            if mode == "bad-hello":
                print(json.dumps({"id": 0, "ok": True, "result": {"name": "x"}}), flush=True)
                continue
            result = {"name": f"fake-{mode}", "version": "0", "protocol": 1, "families": ["permissions"]}
            print(json.dumps({"id": 0, "ok": True, "result": result}), flush=True)
            continue
        if mode == "crash":
            sys.stderr.write("fake candidate: crashing on purpose\n")
            sys.exit(3)
        if mode == "crash-once" and not os.path.exists(state):
            open(state, "w").close()
            sys.exit(4)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("this is not JSON", flush=True)
            continue
        reply_id = request["id"] + 1000 if mode == "wrong-id" else request["id"]
        result = {"match": "yes"} if mode == "bad-shape" else answer(request["op"], request["args"])
        print(json.dumps({"id": reply_id, "ok": True, "result": result}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
