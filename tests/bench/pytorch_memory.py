"""PyTorch's side of bench_memory: the same TorchScript file, its plain forward and the same
forward under torch.profiler.profile(activities=[CPU], profile_memory=True), each timed per call
in alternating blocks (the graph executor's optimiser off, as in Graft), and the peak of the
allocation events of one profiled forward above the level at its start.

  .venv/bin/python pytorch_memory.py MODEL.pt INPUT RUNS WARMUP
INPUT: a shape like 1x3x224x224 (random, seeded) or a torch.save'd tuple of inputs (.pt).
Prints JSON {plain_ms, profiled_ms, peak_bytes, threads} (medians)."""
import json
import statistics
import sys
import time
import warnings

import torch
from torch.profiler import ProfilerActivity, profile

warnings.filterwarnings("ignore")


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def peak_of(prof):
    level = peak = 0
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    for e in sorted(events, key=lambda e: e.start_ns()):
        level += e.nbytes()
        peak = max(peak, level)
    return peak


def main():
    path, given, runs, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    torch._C._set_graph_executor_optimize(False)
    model = torch.jit.load(path).eval()
    torch.manual_seed(0)
    inputs = tuple(torch.load(given)) if given.endswith(".pt") else (torch.randn(*[int(d) for d in given.split("x")]),)
    with torch.no_grad():
        run = lambda: model(*inputs)  # noqa: E731
        for _ in range(warmup):
            run()
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            run()
        peak = peak_of(prof)
        plain, profiled = [], []
        blocks = 5
        for _ in range(blocks):
            plain += [timed(run) for _ in range(runs // blocks)]
            with profile(activities=[ProfilerActivity.CPU], profile_memory=True):
                run()  # the first call under a new session pays its set-up
                profiled += [timed(run) for _ in range(runs // blocks)]
    print(json.dumps({"plain_ms": statistics.median(plain), "profiled_ms": statistics.median(profiled),
                      "peak_bytes": peak, "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
