"""Graft's remote agent: runs a model for a Graft on another machine, over an SSH connection's
stdin and stdout (core/remote/ on Graft's side; docs/remote.md).

Graft sends this file over the connection when it connects; a short bootstrap caches it by its
SHA-256 in ~/.cache/graft/ of the remote user and runs main() with the host's own Python. It needs
only the standard library and torch (2.4 or later). Nothing listens on a port; the agent ends
when the connection's stdin closes, or after hello's "idle_s" seconds without a request.
One agent serves many jobs (Graft keeps the connection, core/remote/agent_pool.h): each job
says hello with its device and settings, and the models it loaded stay loaded (the last few,
per device) for the next job.

The protocol is framed: each message is one JSON header line, followed by exactly
header["bytes"] raw bytes (tensor data, a model file). Every request gets one reply whose "ok"
says whether it worked; a failure carries "kind" and a one-line "message".
The protocol has a file descriptor of its own: before any model runs, main() moves it off fd 1 and
points fd 1 (and sys.stdout, warnings) at a captured, bounded stream, so what a model prints
(aten::_print, prim::Print, print, warnings) comes back as a reply's "model_output" text and
never as protocol bytes. The agent leads its own process group: a hang-up ends the group.
Values (inputs and outputs) are JSON trees whose tensors point into the payload:
  {"t": "tensor", "dtype": "float32", "shape": [1, 3], "offset": 0, "nbytes": 12}
  {"t": "int"|"float"|"bool", "v": ...}, {"t": "none"}, {"t": "tuple"|"list", "items": [...]}
"""

import ctypes
import hashlib
import json
import os
import platform
import signal
import socket
import statistics
import sys
import time
import traceback

PROTOCOL = 1


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "graft")


class Channel:
    """The framed connection: JSON header lines and raw payloads on binary stdin/stdout."""

    def __init__(self, rx, tx):
        self.rx, self.tx = rx, tx

    def receive_header(self):
        line = self.rx.readline()
        return json.loads(line.decode("utf-8")) if line else None

    def receive_payload(self, header):
        n = int(header.get("bytes", 0))
        payload = self.rx.read(n) if n else b""
        if len(payload) != n:
            raise EOFError("the connection ended inside a message")
        return payload

    def stream_payload(self, header, sink, chunk=4 << 20):
        """The payload in bounded chunks to sink(bytes): a large model never sits in memory whole."""
        left = int(header.get("bytes", 0))
        while left > 0:
            data = self.rx.read(min(chunk, left))
            if not data:
                raise EOFError("the connection ended inside a message")
            sink(data)
            left -= len(data)

    def send(self, header, payload=b""):
        header = dict(header)
        header["bytes"] = len(payload)
        self.tx.write(json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n")
        if payload:
            self.tx.write(payload)
        self.tx.flush()


class Failure(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message


def one_line(e):
    text = "%s: %s" % (type(e).__name__, e)
    return " ".join(text.split())[:400]


# --- a model's output ----------------------------------------------------------------------

class OutputCapture:
    """fd 1 as a pipe drained by a thread into a bounded buffer: what a model writes there (from C++
    or Python) is kept up to `limit` bytes per request and counted past it, never sent raw."""

    def __init__(self, limit=64 << 10):
        import threading
        self.limit, self.kept, self.dropped = limit, bytearray(), 0
        self.lock, self.synced = threading.Lock(), threading.Condition()
        self.token = b"\0graft-sync-" + os.urandom(8).hex().encode() + b"\0"
        self.tokens_seen = 0
        r, w = os.pipe()
        os.dup2(w, 1)
        os.close(w)
        self.fd = r
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        tail = b""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            data = tail + data
            while True:
                i = data.find(self.token)
                if i < 0:
                    break
                self._keep(data[:i])
                data = data[i + len(self.token):]
                with self.synced:
                    self.tokens_seen += 1
                    self.synced.notify_all()
            # A token may be cut between two reads: its possible start waits for the next one.
            keep = len(self.token) - 1
            self._keep(data[:-keep] if len(data) > keep else b"")
            tail = data[-keep:] if len(data) > keep else data

    def _keep(self, data):
        if not data:
            return
        with self.lock:
            room = self.limit - len(self.kept)
            self.kept += data[:max(room, 0)]
            self.dropped += max(len(data) - max(room, 0), 0)

    def take(self):
        """What was written since the last take: every buffer flushed, then a token through the pipe
        marks the end, so nothing written before it is left behind."""
        try:
            sys.stdout.flush()
        except Exception:
            pass
        try:
            ctypes.CDLL(None).fflush(None)  # C stdio; std::cout is unbuffered or flushed by endl
        except Exception:
            pass
        with self.synced:
            seen = self.tokens_seen
        os.write(1, self.token)
        with self.synced:
            self.synced.wait_for(lambda: self.tokens_seen > seen, timeout=5)
        with self.lock:
            text = bytes(self.kept).decode("utf-8", "replace")
            if self.dropped:
                text += "\n[%d more bytes not kept]\n" % self.dropped
            self.kept, self.dropped = bytearray(), 0
        return text


def protocol_off_stdout():
    """The protocol's own copy of fd 1, and fd 1 (sys.stdout, warnings) pointed at a capture."""
    import io
    import warnings
    tx = os.fdopen(os.dup(1), "wb", buffering=0)
    capture = OutputCapture()
    sys.stdout = io.TextIOWrapper(os.fdopen(os.dup(1), "wb", buffering=0), encoding="utf-8",
                                  errors="replace", line_buffering=True)

    def show(message, category, filename, lineno, file=None, line=None):
        sys.stdout.write(warnings.formatwarning(message, category, filename, lineno, line))
    warnings.showwarning = show
    return tx, capture


def lead_process_group():
    """The agent and whatever it starts form one process group, ended together on a hang-up."""
    try:
        os.setsid()
    except OSError:
        pass  # already a session leader (sshd makes one), and so leads its own group


def end_process_group(code):
    """Ends the agent and, when it leads its group, everything it started (SIGKILL: a model's
    child may ignore gentler signals)."""
    sys.stderr.flush()
    if os.getpgrp() == os.getpid():
        try:
            os.killpg(os.getpgrp(), signal.SIGKILL)
        except OSError:
            pass
    os._exit(code)


# --- values ---------------------------------------------------------------------------------

def dtype_of(name):
    import torch
    d = getattr(torch, name, None)
    if not isinstance(d, torch.dtype):
        raise Failure("usage", "unknown dtype %s" % name)
    return d


def decode(tree, payload, device):
    import torch
    t = tree["t"]
    if t == "tensor":
        dtype = dtype_of(tree["dtype"])
        shape = tree["shape"]
        n = tree["nbytes"]
        if n == 0:
            return torch.empty(shape, dtype=dtype, device=device)
        raw = bytearray(payload[tree["offset"]:tree["offset"] + n])
        value = torch.frombuffer(raw, dtype=torch.uint8).view(dtype).reshape(shape)
        return value.to(device)
    if t in ("int", "float", "bool"):
        return tree["v"]
    if t == "none":
        return None
    if t == "str":
        return tree["v"]
    items = [decode(i, payload, device) for i in tree["items"]]
    return tuple(items) if t == "tuple" else items


class Encoder:
    """Values as wire trees, their tensor bytes appended to one payload. types_only: a tensor is
    sent as its dtype and shape alone ("meta"), for a caller that needs no values (shapes)."""

    def __init__(self, types_only=False):
        self.chunks, self.size, self.types_only = [], 0, types_only

    def encode(self, value):
        import torch
        if isinstance(value, torch.Tensor) and self.types_only:
            return {"t": "tensor", "dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape),
                    "meta": True, "offset": 0, "nbytes": 0}
        if isinstance(value, torch.Tensor):
            v = value.detach().to("cpu").contiguous()
            n = v.numel() * v.element_size()
            data = ctypes.string_at(v.data_ptr(), n) if n else b""
            tree = {"t": "tensor", "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape),
                    "offset": self.size, "nbytes": n}
            self.chunks.append(data)
            self.size += n
            return tree
        if isinstance(value, bool):
            return {"t": "bool", "v": value}
        if isinstance(value, int):
            return {"t": "int", "v": value}
        if isinstance(value, float):
            return {"t": "float", "v": value}
        if value is None:
            return {"t": "none"}
        if isinstance(value, (tuple, list)):
            return {"t": "tuple" if isinstance(value, tuple) else "list", "items": [self.encode(x) for x in value]}
        if isinstance(value, dict):
            return {"t": "tuple", "items": [self.encode(x) for x in value.values()]}
        raise Failure("run", "cannot send back a %s" % type(value).__name__)

    def payload(self):
        return b"".join(self.chunks)


def leaves(value):
    """Tensors and numbers of a result, in order (tuples, lists, dicts, Hugging Face outputs)."""
    import torch
    if isinstance(value, (torch.Tensor, bool, int, float)):
        return [value]
    if value is None:
        return []
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in leaves(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    try:
        import torch.utils._pytree as pytree
        return [x for x in pytree.tree_leaves(value) if x is not None]
    except Exception:
        raise Failure("run", "cannot flatten a result of type %s" % type(value).__name__)


# --- models ---------------------------------------------------------------------------------

class Model:
    """A loaded model on the agent's device: call(flat_inputs) -> result."""

    def __init__(self, path, fmt, device):
        import torch
        self.fmt, self.device, self.graph_module = fmt, device, None
        if fmt == "pt2":
            ep = self._load_program(path)
            self.in_spec = ep.call_spec.in_spec
            moved = device.type == "cpu"
            if not moved:
                try:
                    from torch.export.passes import move_to_device_pass  # torch 2.6 and later
                    ep = move_to_device_pass(ep, str(device))
                    moved = True
                except ImportError:
                    pass
            self.module = ep.module()
            if not moved:  # older torch: weights moved, device arguments kept (pytorch/pytorch#121761)
                self.module = self.module.to(device)
            self.graph_module = self.module
        else:
            # TorchScript: the same trust rules as opening it locally (docs/remote.md).
            self.module = torch.jit.load(path, map_location=device)
            self.module.eval()
            self.in_spec = None

    @staticmethod
    def _load_program(path):
        import torch
        try:
            return torch.export.load(path)
        except Exception as first:
            # A Hugging Face program's output classes must be registered with pytree first.
            try:
                import transformers.modeling_outputs  # noqa: F401
            except Exception:
                raise first
            return torch.export.load(path)

    def arguments(self, flat):
        if self.in_spec is None:
            return tuple(flat), {}
        import torch.utils._pytree as pytree
        if self.in_spec.num_leaves != len(flat):
            flat = [v for v in flat if v is not None]
        if self.in_spec.num_leaves != len(flat):
            raise Failure("usage", "the program takes %d inputs, Graft sent %d" % (self.in_spec.num_leaves, len(flat)))
        args, kwargs = pytree.tree_unflatten(list(flat), self.in_spec)
        return args, kwargs

    def __call__(self, args, kwargs):
        return self.module(*args, **kwargs)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cuda_sync(device):
    if device.type == "cuda":
        import torch
        torch.cuda.synchronize(device)


class Agent:
    # Loaded models kept between jobs, the most recently used first out last: a window's session
    # moves between a few revisions, and each holds its weights on the device.
    KEEP_LOADED = 4

    def __init__(self, channel):
        import collections
        import torch
        self.channel = channel
        self.models = collections.OrderedDict()  # (sha256, device) -> Model
        self.device = None
        self.models_dir = os.path.join(cache_dir(), "models")
        # What a hello without "threads" or "tf32" restores: a job's settings end with it.
        self.default_threads = torch.get_num_threads()
        self.default_tf32 = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
        self.idle_since, self.idle_limit = None, 0

    # hello: the device, checked; the host, Python and torch named.
    def hello(self, h, _):
        import torch
        name = h.get("device", "cpu")
        device = torch.device(name)
        if device.type == "cuda":
            if not torch.cuda.is_available():
                raise Failure("no-cuda", "no CUDA here (torch %s, %s)" % (torch.__version__,
                              "built without CUDA" if torch.version.cuda is None else "no usable GPU"))
            if (device.index or 0) >= torch.cuda.device_count():
                raise Failure("no-cuda", "no %s here: %d CUDA device(s)" % (name, torch.cuda.device_count()))
            device_name = torch.cuda.get_device_name(device.index or 0)
            tf32 = h.get("tf32", "default")
            matmul, cudnn = self.default_tf32
            if tf32 in ("on", "off"):
                matmul = cudnn = tf32 == "on"
            torch.backends.cuda.matmul.allow_tf32 = matmul
            torch.backends.cudnn.allow_tf32 = cudnn
        elif device.type == "cpu":
            device_name = cpu_name()
        else:
            raise Failure("usage", "unknown device %s" % name)
        threads = int(h.get("threads") or self.default_threads)
        if threads != torch.get_num_threads():
            torch.set_num_threads(threads)
        self.device = device
        if h.get("idle_s"):
            self.watch_idle(float(h["idle_s"]))
        out = {"host": socket.gethostname(), "python": sys.executable, "python_version": platform.python_version(),
               "torch": torch.__version__, "device": str(device), "device_name": device_name,
               "threads": torch.get_num_threads(), "pid": os.getpid(), "protocol": PROTOCOL}
        # On request only: naming the GPUs starts CUDA, which a CPU job need not pay for.
        if h.get("list_devices"):
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            out["cuda_devices"] = [torch.cuda.get_device_name(i) for i in range(count)]
        return out

    def model_path(self, sha, fmt):
        return os.path.join(self.models_dir, sha + (".pt2" if fmt == "pt2" else ".pt"))

    def has_model(self, h, _):
        return {"have": os.path.isfile(self.model_path(h["sha256"], h["format"]))}

    def put_model(self, h):
        """Streams the model to the cache, checking its SHA-256 on the way (called before its payload is read)."""
        os.makedirs(self.models_dir, exist_ok=True)
        path = self.model_path(h["sha256"], h["format"])
        tmp = "%s.%d.tmp" % (path, os.getpid())
        digest = hashlib.sha256()
        with open(tmp, "wb") as f:
            def sink(data):
                digest.update(data)
                f.write(data)
            self.channel.stream_payload(h, sink)
        if digest.hexdigest() != h["sha256"]:
            os.unlink(tmp)
            raise Failure("transfer", "the model arrived damaged (SHA-256 differs)")
        os.replace(tmp, path)
        return {}

    def model(self, h):
        key = (h["sha256"], str(self.device))
        if key in self.models:
            self.models.move_to_end(key)
            return self.models[key]
        path = self.model_path(h["sha256"], h["format"])
        if not os.path.isfile(path):
            raise Failure("usage", "model %s is not cached here" % h["sha256"][:12])
        while len(self.models) >= self.KEEP_LOADED:
            self.models.popitem(last=False)
        try:
            self.models[key] = Model(path, h["format"], self.device)
        except Failure:
            raise
        except Exception as e:
            raise Failure("load", "cannot load the model: %s" % one_line(e))
        return self.models[key]

    def watch_idle(self, limit):
        """Ends the agent after `limit` seconds without a request: a Graft that went away without
        closing the connection (or kept it open and forgot it) leaves nothing running for long."""
        first = self.idle_limit == 0
        self.idle_limit = limit
        if not first:
            return
        import threading

        def watch():
            while True:
                time.sleep(min(5.0, max(0.2, self.idle_limit / 10)))
                since = self.idle_since
                if since is not None and time.monotonic() - since > self.idle_limit:
                    end_process_group(0)
        threading.Thread(target=watch, daemon=True).start()

    def run(self, h, payload):
        import torch
        model = self.model(h)
        flat = [decode(t, payload, self.device) for t in h["inputs"]]
        args, kwargs = model.arguments(flat)
        with torch.no_grad():
            cuda_sync(self.device)
            t0 = time.perf_counter()
            result = model(args, kwargs)
            cuda_sync(self.device)
            ms = (time.perf_counter() - t0) * 1e3
        enc = Encoder()
        outputs = [enc.encode(v) for v in leaves(result)]
        return {"outputs": outputs, "ms": ms}, enc.payload()

    def run_nodes(self, h, payload):
        """One node-by-node run of a program's graph, keeping every node's values (a snapshot, on
        the CPU): what a per-node compare needs. A node that returns a tuple is sent whole, with
        the names of the getitems that take its items ("aliases"): Graft's node carries those.
        With h["types_only"], only each tensor's dtype and shape go back (shapes)."""
        import operator
        import torch
        model = self.model(h)
        if model.graph_module is None:
            raise Failure("usage", "per-node values need a torch.export program (.pt2) on the host")
        flat = [decode(t, payload, self.device) for t in h["inputs"]]
        kept = {}

        types_only = bool(h.get("types_only"))

        def keep(node, value):
            if node.target is operator.getitem:
                return
            if types_only:
                kept[node.name] = [torch.empty(v.shape, dtype=v.dtype, device="meta") if isinstance(v, torch.Tensor) else v
                                   for v in leaves(value)]
                return
            kept[node.name] = [v.detach().to("cpu", copy=True) if isinstance(v, torch.Tensor) else v for v in leaves(value)]

        interp = make_timed_interpreter()(model.graph_module, self.device, {})
        interp.keep = keep
        with torch.no_grad():
            result = interp.run_flat(flat_args(flat, model))
        enc = Encoder(types_only)
        outputs = [enc.encode(v) for v in leaves(result)]
        by_name = {n.name: n for n in model.graph_module.graph.nodes}
        nodes = [{"name": name, "aliases": [u.name for u in by_name[name].users if u.target is operator.getitem],
                  "values": [enc.encode(v) for v in values]} for name, values in kept.items()]
        return {"outputs": outputs, "nodes": nodes}, enc.payload()

    def profile(self, h, payload):
        import torch
        model = self.model(h)
        flat = [decode(t, payload, self.device) for t in h["inputs"]]
        args, kwargs = model.arguments(flat)
        runs, warmup = int(h.get("runs", 20)), int(h.get("warmup", 3))
        per_node = bool(h.get("per_node", True)) and model.graph_module is not None
        progress_every = max(1, runs // 10)
        forward_ms, run_ms = [], []
        node_ms = {}
        kernel_ms = {}
        gm = model.graph_module
        nodes = [n for n in gm.graph.nodes if n.op == "call_function"] if per_node else []
        interp = make_timed_interpreter()(gm, self.device, {}) if per_node else None
        cuda = self.device.type == "cuda"
        with torch.no_grad():
            for _ in range(warmup):
                model(args, kwargs)
                if per_node:
                    interp.run_flat(flat_args(flat, model))
            cuda_sync(self.device)
            if per_node:
                interp.times = node_ms  # measured runs only
            prof = None
            if per_node and cuda:
                try:
                    from torch.profiler import ProfilerActivity, profile
                    prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
                    prof.__enter__()
                    interp.annotate = True
                except Exception:
                    prof = None
            for r in range(runs):
                cuda_sync(self.device)
                t0 = time.perf_counter()
                model(args, kwargs)
                cuda_sync(self.device)
                forward_ms.append((time.perf_counter() - t0) * 1e3)
                if per_node:
                    interp.run_index = r
                    t0 = time.perf_counter()
                    interp.run_flat(flat_args(flat, model))
                    cuda_sync(self.device)
                    run_ms.append((time.perf_counter() - t0) * 1e3)
                else:
                    run_ms.append(forward_ms[-1])
                if (r + 1) % progress_every == 0:
                    self.channel.send({"progress": "run %d of %d" % (r + 1, runs)})
            kernels_note = ""
            if prof is not None:
                prof.__exit__(None, None, None)
                kernels_note = collect_kernels(prof, kernel_ms)
            elif cuda and per_node:
                kernels_note = "torch.profiler's CUDA activity was not available on the host"
        out = {"forward_ms": forward_ms, "run_ms": run_ms, "per_node": per_node,
               "nodes": [{"name": n.name, "target": str(n.target), "self_ms": node_ms.get(n.name, []),
                          "kernel_ms": kernel_ms.get(n.name, [])} for n in nodes],
               "kernels_recorded": bool(kernel_ms), "kernel_note": kernels_note}
        if cuda:
            out["peak_bytes"] = torch.cuda.max_memory_allocated(self.device)
        return out


def flat_args(flat, model):
    args, kwargs = model.arguments(flat)
    import torch.utils._pytree as pytree
    return pytree.tree_leaves((args, kwargs))


def collect_kernels(prof, kernel_ms):
    """Device time per node and run from the profiler's annotations "graft/RUN/NODE"."""
    for e in prof.events():
        # The CPU-side range only: Kineto also lists each range on the GPU timeline.
        if not e.name.startswith("graft/") or "CPU" not in str(getattr(e, "device_type", "CPU")):
            continue
        _, run, node = e.name.split("/", 2)
        t = getattr(e, "device_time_total", None)
        if t is None:
            t = getattr(e, "cuda_time_total", 0)
        times = kernel_ms.setdefault(node, {})
        times[int(run)] = times.get(int(run), 0.0) + t / 1e3
    for node, by_run in list(kernel_ms.items()):
        kernel_ms[node] = [by_run[r] for r in sorted(by_run)]
    return ""


def make_timed_interpreter():
    import torch.fx

    class Timed(torch.fx.Interpreter):
        """Runs the program's graph node by node, timing each call_function (its fx name)."""

        def __init__(self, gm, device, times):
            super().__init__(gm, garbage_collect_values=True)
            self.device, self.times, self.annotate, self.run_index = device, times, False, 0
            self.keep = None  # keep(node, value): run_nodes's record of each node

        def run_flat(self, flat):
            return self.run(*flat)

        def run_node(self, n):
            if n.op != "call_function":
                return super().run_node(n)
            if self.annotate:
                import torch
                with torch.profiler.record_function("graft/%d/%s" % (self.run_index, n.name)):
                    t0 = time.perf_counter()
                    r = super().run_node(n)
            else:
                t0 = time.perf_counter()
                r = super().run_node(n)
            self.times.setdefault(n.name, []).append((time.perf_counter() - t0) * 1e3)
            if self.keep is not None:
                self.keep(n, r)
            return r

    return Timed


class HangUpWatch:
    """While a request runs, Graft sends nothing until the reply: anything on stdin then, or its
    end (the connection dropped, Graft cancelled or was killed), ends the agent at once instead of
    after a long run nobody waits for."""

    def __init__(self, fd):
        import threading
        self.fd, self.active = fd, threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self):
        import select
        while True:
            self.active.wait()
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.5)
            except (OSError, ValueError):
                return
            if not ready or not self.active.is_set():
                continue
            # A select begun in an earlier request may have woken for this request's own header,
            # which the main thread has read since: only what is still unread counts.
            try:
                ready, _, _ = select.select([self.fd], [], [], 0)
            except (OSError, ValueError):
                return
            if ready and self.active.is_set():
                end_process_group(4)

    def __enter__(self):
        self.active.set()

    def __exit__(self, *exc):
        self.active.clear()


def main():
    lead_process_group()
    rx = sys.stdin.buffer
    # Before torch is imported or any model runs: the protocol leaves fd 1 for a descriptor of its
    # own, and fd 1 becomes a capture whose bounded contents go back as "model_output".
    tx, capture = protocol_off_stdout()
    channel = Channel(rx, tx)
    try:
        import torch  # noqa: F401
    except Exception as e:
        channel.send({"ok": False, "kind": "no-torch",
                      "message": "no torch in %s (%s)" % (sys.executable, one_line(e))})
        return 3
    agent = Agent(channel)
    watch = HangUpWatch(rx.fileno())
    handlers = {"hello": agent.hello, "has_model": agent.has_model, "run": agent.run, "run_nodes": agent.run_nodes,
                "profile": agent.profile}
    while True:
        agent.idle_since = time.monotonic()
        header = channel.receive_header()
        agent.idle_since = None
        if header is None:
            end_process_group(0)  # the connection ended without a bye: nothing of ours stays behind
        if header.get("op") == "bye":
            return 0
        try:
            if header.get("op") == "put_model":
                reply = agent.put_model(header)  # reads its own payload, streamed
            else:
                payload = channel.receive_payload(header)
                handler = handlers.get(header.get("op"))
                if handler is None:
                    raise Failure("usage", "unknown request %r" % header.get("op"))
                if header.get("op") != "hello" and agent.device is None:
                    raise Failure("usage", "hello first")
                with watch:
                    reply = handler(header, payload)
            out = b""
            if isinstance(reply, tuple):
                reply, out = reply
            reply = dict(reply)
            reply["ok"] = True
            reply["model_output"] = capture.take()
            channel.send(reply, out)
        except EOFError:
            end_process_group(0)
        except Failure as f:
            channel.send({"ok": False, "kind": f.kind, "message": f.message, "model_output": capture.take()})
        except Exception as e:
            kind = "oom" if "out of memory" in str(e).lower() else "run"
            traceback.print_exc(file=sys.stderr)
            channel.send({"ok": False, "kind": kind, "message": one_line(e), "model_output": capture.take()})


if __name__ == "__main__":
    sys.exit(main())
