"""PyTorch's side of bench_profile: the same TorchScript file, its plain forward and the same
forward under PyTorch's own profiler (torch.profiler.profile, CPU activity, record_shapes=False),
each timed per call over the same number of runs, in alternating blocks. The graph executor's optimiser is off, as in
Graft, so both time the graph as written.

  .venv/bin/python pytorch_profile.py MODEL.pt SHAPE RUNS WARMUP     (SHAPE like 1x3x224x224)
Prints JSON {plain_ms, profiled_ms, threads} (medians)."""
import json
import statistics
import sys
import time
import warnings

import torch

warnings.filterwarnings("ignore", category=FutureWarning)


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main():
    path, shape, runs, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    torch._C._set_graph_executor_optimize(False)
    model = torch.jit.load(path).eval()
    torch.manual_seed(0)
    x = torch.randn(*[int(d) for d in shape.split("x")])
    with torch.no_grad():
        run = lambda: model(x)  # noqa: E731
        for _ in range(warmup):
            run()
        # Plain and profiled calls alternate in blocks (one profiler session per block), so
        # machine noise hits both sides alike.
        plain, profiled = [], []
        activities = [torch.profiler.ProfilerActivity.CPU]
        blocks = 5
        for b in range(blocks):
            plain += [timed(run) for _ in range(runs // blocks)]
            with torch.profiler.profile(activities=activities, record_shapes=False):
                run()  # the first call under a new session pays its set-up
                profiled += [timed(run) for _ in range(runs // blocks)]
    print(json.dumps({"plain_ms": statistics.median(plain), "profiled_ms": statistics.median(profiled),
                      "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
