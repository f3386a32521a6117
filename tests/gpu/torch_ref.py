"""PyTorch's own figures on the GPU machine for the files tests/gpu/run.sh gives Graft, with the
same inputs: eager CUDA forward (median of 30 calls, a synchronisation after each), the peak CUDA
memory of one forward above what was allocated before it, torch.profiler's overhead with CPU and
CUDA activities (median of profiled calls over plain ones) and its kernels per call, and the CPU
against CUDA max abs difference of the first output.

  python3 torch_ref.py SPEC ...      SPEC: MODEL@1x3x224x224 (random, seed 0) or MODEL@ids.pt (a tensor file)
Prints one JSON line per SPEC: {"spec": SPEC, ...}."""
import json
import statistics
import sys
import time
import warnings

import torch

warnings.filterwarnings("ignore")


def load(path, device):
    if not path.endswith(".pt2"):
        return torch.jit.load(path, map_location=device).eval()
    ep = torch.export.load(path)
    if device != "cpu":
        # ep.module().to("cuda") fails for a program exported on the CPU (pytorch#121761).
        from torch.export.passes import move_to_device_pass
        ep = move_to_device_pass(ep, device)
    return ep.module()


def first(y):
    return first(y[0]) if isinstance(y, (tuple, list)) else y


def timed(fn):
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e3


def measure(path, arg):
    if arg.endswith(".pt"):
        x = torch.load(arg)
    else:
        x = torch.randn(*[int(d) for d in arg.split("x")], generator=torch.Generator().manual_seed(0))
    r = {}
    with torch.no_grad():
        y_cpu = first(load(path, "cpu")(x)) if "llama" not in path else None  # the 1B CPU forward is Graft's to time
        m = load(path, "cuda")
        xc = x.cuda()
        for _ in range(5):
            m(xc)
        torch.cuda.synchronize()
        r["eager_ms"] = statistics.median(timed(lambda: m(xc)) for _ in range(30))
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        y = first(m(xc))
        torch.cuda.synchronize()
        r["peak_bytes"] = torch.cuda.max_memory_allocated() - base
        if y_cpu is not None:
            r["cpu_vs_cuda_max_abs"] = (y.float().cpu() - y_cpu.float()).abs().max().item()
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        plain, profiled = [], []
        kernels = 0
        for _ in range(3):
            plain += [timed(lambda: m(xc)) for _ in range(10)]
            with torch.profiler.profile(activities=activities, record_shapes=False) as prof:
                timed(lambda: m(xc))  # the session's first call pays its set-up
                profiled += [timed(lambda: m(xc)) for _ in range(10)]
            kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA) // 11
        r["profiler_overhead"] = statistics.median(profiled) / statistics.median(plain)
        r["profiler_kernels_per_call"] = kernels
    return r


def main():
    # One JSON line per SPEC as soon as it is measured, so a run cut short keeps what it had.
    for spec in sys.argv[1:]:
        path, arg = spec.rsplit("@", 1)
        try:
            r = measure(path, arg)
        except Exception as e:
            r = {"error": f"{type(e).__name__}: {e}"[:400]}
        torch.cuda.empty_cache()
        print(json.dumps({"spec": spec, **r}), flush=True)


if __name__ == "__main__":
    main()
