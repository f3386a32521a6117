"""Graft's Python worker: started once per Graft process and reused for every rule file, module
file and rule-editor preview, so torch is imported (and torch.export warmed up) once. Not an API.

    python -u _worker.py            (Graft starts it in a process group of its own)

Speaks JSON lines on stdin/stdout, one job at a time:
    worker → Graft   {"ready": true, "pid": P, "python": EXE, "torch": VERSION}
                     or {"ready": false, "error": "ModuleNotFoundError: No module named 'torch'"}
    Graft → worker   {"job": N, "mode": "rules"|"module", "path": FILE, "outdir": DIR, "timeout": S,
                      "request": FILE|null}
    worker → Graft   {"job": N, "started": PID}, then {"job": N, "exit": CODE, "signal": SIG,
                      "stopped": null|"timeout"|"cancelled"}
    Graft → worker   {"cancel": N} (while job N runs)

Each job runs in a fork of the worker (torch already imported) that leads a process group of its
own, its stdin /dev/null and its output in OUTDIR/output.txt. When the job ends, by itself, at its
time limit or cancelled, the whole group is killed, so nothing the rule file started outlives it;
the job's fork also dies with the worker (PR_SET_PDEATHSIG). The worker exits when its stdin
closes (Graft ended), killing the job it runs.
"""
import json
import os
import select
import signal
import sys
import time


def _send(message):
    try:
        os.write(1, (json.dumps(message) + "\n").encode())
    except OSError:  # Graft is gone
        _remove_own_folder()
        os._exit(0)


def _short(exc):
    lines = [l for l in str(exc).splitlines() if l.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


# A rule like the shipped twins (a size-reading replacement: exports at several ranks), compiled
# once at start.
_WARM_RULE = """import torch
import torch.nn.functional as F
from graft.rules import Rule, Tensor


def pattern(x: Tensor[2], w: Tensor[2], b: Tensor[1]):
    return F.relu(F.linear(x, w, b))


def replacement(x: Tensor[2], w: Tensor[2], b: Tensor[1]):
    x2 = x.reshape(-1, x.shape[-1])
    return torch._addmm_activation(b, x2, w.t()).reshape(list(x.shape[:-1]) + [w.shape[0]])


RULES = [Rule(pattern, replacement, name="warm-up")]
"""


def _warm_up():
    """What a job does, once on a small rule, so that the jobs' forks start with the lazy imports
    and caches of torch.jit and torch.export done (a process's first export costs seconds)."""
    import shutil
    import tempfile

    from graft._rule_compiler import compile_rules

    folder = tempfile.mkdtemp(prefix="graft-warm-up-")
    try:
        path = os.path.join(folder, "warm_up.py")
        with open(path, "w") as f:
            f.write(_WARM_RULE)
        compile_rules(path, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        sys.modules.pop("graft_user_rules", None)


def _die_with_parent():
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _run_child(job):
    """In the fork: a process group of its own, no stdin, output to a file, then the job."""
    code = 1
    try:
        os.setpgid(0, 0)
        _die_with_parent()
        if os.getppid() == 1:
            os._exit(1)
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
            signal.signal(s, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        out = os.open(os.path.join(job["outdir"], "output.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        sys.stdout = os.fdopen(1, "w", buffering=1)
        sys.stderr = os.fdopen(2, "w", buffering=1)
        os.chdir(os.path.dirname(os.path.abspath(job["path"])))
        from graft._rule_compiler import run_job

        run_job(job["mode"], job["path"], job["outdir"], float(job["timeout"]), job.get("request"))
        code = 0
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


class _Input:
    """Lines from stdin read without Python's buffering, so select() tells the truth."""

    def __init__(self):
        self.buffer = b""
        self.closed = False

    def _fill(self):
        chunk = os.read(0, 65536)
        if not chunk:
            self.closed = True
        self.buffer += chunk

    def line(self, timeout=None):
        """The next line, None when none came within `timeout` or stdin closed."""
        while b"\n" not in self.buffer and not self.closed:
            ready, _, _ = select.select([0], [], [], timeout)
            if not ready:
                return None
            self._fill()
        if b"\n" not in self.buffer:
            return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _run(job, stdin):
    pid = os.fork()
    if pid == 0:
        _run_child(job)
    try:
        os.setpgid(pid, pid)  # also here: no race with the group kill below
    except OSError:
        pass
    _send({"job": job["job"], "started": pid})
    # The job stops itself at its limit with its stack dumped (faulthandler); this is the backstop.
    deadline = time.monotonic() + float(job["timeout"]) + 15
    stopped = None
    while True:
        # Exited, not yet reaped: its pid (and so its group's id) cannot be reused before the kill.
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None and info.si_pid == pid:
            break
        if time.monotonic() > deadline:
            stopped = "timeout"
            _kill_group(pid)
        line = stdin.line(0.02)
        if stdin.closed:  # Graft is gone: so is its job
            _kill_group(pid)
            os.waitpid(pid, 0)
            _remove_own_folder()
            sys.exit(0)
        if line:
            try:
                message = json.loads(line)
            except ValueError:
                message = {}
            if message.get("cancel") == job["job"]:
                stopped = "cancelled"
                _kill_group(pid)
    _kill_group(pid)  # whatever the job forked
    _, status = os.waitpid(pid, 0)
    _send({"job": job["job"], "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
           "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None, "stopped": stopped})


def _remove_own_folder():
    """Graft's folder holding this script (graft-python-XXXXXX), left behind when Graft was killed."""
    import shutil

    folder = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.basename(folder).startswith("graft-python-"):
        shutil.rmtree(folder, ignore_errors=True)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a write to a closed socket fails instead
    try:
        import torch

        torch.set_num_threads(1)  # no thread pool before a fork: the jobs' forks may use torch freely
    except BaseException as e:
        _send({"ready": False, "error": _short(e)})
        sys.exit(1)
    try:
        _warm_up()
    except Exception:
        pass  # only slower: each job then warms up by itself
    _send({"ready": True, "pid": os.getpid(), "python": sys.executable, "torch": torch.__version__})
    stdin = _Input()
    while True:
        line = stdin.line()
        if line is None:
            if stdin.closed:  # Graft ended
                _remove_own_folder()
                return
            continue
        try:
            job = json.loads(line)
        except ValueError:
            continue
        if "job" in job and "path" in job:
            _run(job, stdin)


if __name__ == "__main__":
    main()
