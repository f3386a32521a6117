"""PyTorch's side of bench_profile_cuda: the same file on CUDA, its plain forward and the same forward
under torch.profiler.profile with CPU and CUDA activities (what a user runs to see kernels), each
call timed with a synchronisation at its end, over the same number of runs in alternating blocks.

  .venv/bin/python pytorch_profile_cuda.py MODEL SHAPE RUNS WARMUP     (SHAPE like 32x3x224x224)
Prints JSON {plain_ms, profiled_ms, kernels_per_run} (medians), or {"skipped": why} without CUDA."""
import json
import statistics
import sys
import time
import warnings

import torch

warnings.filterwarnings("ignore")


def load(path):
    if not path.endswith(".pt2"):
        return torch.jit.load(path, map_location="cuda").eval()
    # A program exported on the CPU runs on CUDA only through move_to_device_pass (pytorch#121761).
    from torch.export.passes import move_to_device_pass
    return move_to_device_pass(torch.export.load(path), "cuda").module()


def main():
    path, shape, runs, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if not torch.cuda.is_available():
        print(json.dumps({"skipped": "CUDA is not available"}))
        return
    torch._C._set_graph_executor_optimize(False)
    model = load(path)
    torch.manual_seed(0)
    x = torch.randn(*[int(d) for d in shape.split("x")]).cuda()

    def timed():
        start = time.perf_counter()
        model(x)
        torch.cuda.synchronize()
        return (time.perf_counter() - start) * 1000

    with torch.no_grad():
        for _ in range(warmup):
            model(x)
        torch.cuda.synchronize()
        plain, profiled, kernels = [], [], 0
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        blocks = 5
        for _ in range(blocks):
            plain += [timed() for _ in range(runs // blocks)]
            with torch.profiler.profile(activities=activities, record_shapes=False) as prof:
                timed()  # the first call under a new session pays its set-up
                profiled += [timed() for _ in range(runs // blocks)]
            kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
            kernels //= runs // blocks + 1
    print(json.dumps({"plain_ms": statistics.median(plain), "profiled_ms": statistics.median(profiled),
                      "kernels_per_run": kernels}))


if __name__ == "__main__":
    main()
