"""A hostile host for tst_remote: stands in for ssh (GRAFT_SSH_COMMAND="python fake_host.py CASE")
and answers Graft's agent protocol badly. Graft must end each job with a clear error, never crash.
  huge_offset     a run's tensor at offset 2^63-8, 32 bytes (offset + nbytes overflows int64)
  bad_shape       a run's tensor with a negative dimension
  huge_numel      a run's tensor whose shape's element count overflows int64, 32 bytes
  deep_values     a run's outputs nested 200 lists deep (deeper_values: 100000)
  flood_stderr    256 MiB on stderr, no answer, then exit 1
  huge_reply      a hello reply announcing 10^10 bytes, then a fast stream
  huge_run_reply  a run reply announcing 2^40 bytes, then a fast stream
  long_line       a header line that never ends
  escape_stderr   terminal escapes on stderr, then exit 1 before answering
  escape_reply    a failed hello whose message holds terminal escapes
With --write-seeds DIR instead: each case's stdout as a file, the fuzz target's seeds (tests/fuzz).
Standard library only.
"""
import json
import os
import sys

ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31m\x9b"
HELLO = {"ok": True, "host": "fake", "python": "/usr/bin/python3", "python_version": "3.11", "torch": "2.14.1",
         "device": "cpu", "device_name": "fake cpu", "threads": 1, "pid": os.getpid(), "protocol": 1}


def frame(header, payload=b""):
    header = dict(header)
    header.setdefault("bytes", len(payload))
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + payload


def tensor(offset, nbytes, shape):
    return {"t": "tensor", "dtype": "float32", "shape": shape, "offset": offset, "nbytes": nbytes}


def deep(n):
    """A run reply whose one output is n lists deep (written by hand: json's encoder recurses)."""
    tree = b'{"t":"list","items":[' * n + b'{"t":"int","v":1}' + b"]}" * n
    return b'{"ok":true,"ms":1.0,"bytes":0,"outputs":[' + tree + b"]}\n"


# What each case answers to a run (a frame), where it misbehaves there.
RUN_REPLIES = {
    "huge_offset": frame({"ok": True, "ms": 1.0, "outputs": [tensor(2 ** 63 - 8, 32, [8])]}, b"\0" * 32),
    "bad_shape": frame({"ok": True, "ms": 1.0, "outputs": [tensor(0, 32, [-1, 8])]}, b"\0" * 32),
    "huge_numel": frame({"ok": True, "ms": 1.0, "outputs": [tensor(0, 32, [2 ** 40, 2 ** 40, 2 ** 40])]}, b"\0" * 32),
    "deep_values": deep(200),
    "deeper_values": deep(100000),
}


def stream_forever(out):
    block = b"\0" * (1 << 20)
    try:
        while True:
            out.write(block)
    except (BrokenPipeError, OSError):
        os._exit(0)


def serve(case):
    out, inp = sys.stdout.buffer, sys.stdin.buffer
    if case == "flood_stderr":
        block = b"flood " * 10000 + b"\n"
        for _ in range((256 << 20) // len(block)):
            os.write(2, block)
        return 1
    if case == "escape_stderr":
        sys.stderr.write("graft-agent: " + ESCAPES + " host says hi\n")
        sys.stderr.flush()
        return 1
    out.write(b"graft-agent have\n")
    out.flush()
    if case == "long_line":
        out.write(b"{")
        stream_forever(out)
    while True:
        line = inp.readline()
        if not line:
            return 0
        header = json.loads(line)
        n = int(header.get("bytes", 0))
        if n:
            inp.read(n)
        op = header.get("op")
        if op == "bye":
            return 0
        if op == "hello" and case == "huge_reply":
            out.write(frame(dict(HELLO, bytes=10 ** 10)))
            stream_forever(out)
        if op == "hello" and case == "escape_reply":
            out.write(frame({"ok": False, "kind": "run", "message": "bad news " + ESCAPES}))
        elif op == "hello":
            out.write(frame(HELLO))
        elif op == "has_model":
            out.write(frame({"ok": True, "have": True}))
        elif op == "put_model":
            out.write(frame({"ok": True}))
        elif op in ("run", "run_nodes") and case == "huge_run_reply":
            out.write(frame({"ok": True, "ms": 1.0, "outputs": []}, b"")[:-1].replace(b'"bytes":0', b'"bytes":%d' % 2 ** 40)
                      + b"\n")
            stream_forever(out)
        elif op in ("run", "run_nodes"):
            out.write(RUN_REPLIES[case])
        else:
            out.write(frame({"ok": False, "kind": "usage", "message": "not here"}))
        out.flush()


def write_seeds(folder):
    os.makedirs(folder, exist_ok=True)
    seeds = {k: v for k, v in RUN_REPLIES.items() if k != "deeper_values"}  # 2 MB: past the JSON parser's depth
    seeds["huge_reply"] = frame(dict(HELLO, bytes=10 ** 10)) + b"\0" * 64
    seeds["escape_reply"] = frame({"ok": False, "kind": "run", "message": "bad news " + ESCAPES})
    seeds["hello"] = frame(HELLO)
    seeds["good_run"] = frame({"ok": True, "ms": 1.0, "outputs": [tensor(0, 16, [4]), {"t": "tuple", "items": [
        {"t": "int", "v": 3}, {"t": "none"}, tensor(16, 0, [0, 2])]}]}, b"AAAA" * 4)
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    if sys.argv[1] == "--write-seeds":
        write_seeds(sys.argv[2])
        sys.exit(0)
    sys.exit(serve(sys.argv[1]))
