"""PyTorch's side of bench_run's speed parity: stock PyTorch's plain forward of the same file, one
intra-op thread, under torch.no_grad(), each call timed, after WARMUP warm-up calls per mode.

  .pt:  "jit"    torch.jit.load(p) as loaded (what a user runs; the stated target)
        "frozen" torch.jit.freeze(torch.jit.load(p).eval()) (the form Graft runs)
  .pt2: "export" torch.export.load(p).module()

  .venv/bin/python pytorch_forward.py MODEL SHAPE WARMUP     (SHAPE like 1x3x224x224)
Then reads one block size N a line from stdin and answers each with a JSON line
{MODE: [ms, ...], ..., "threads": N}: N timed calls per mode, so the caller can interleave its own
runs between blocks with the models loaded once. Ends at end of input."""
import json
import sys
import time
import warnings

import torch

warnings.filterwarnings("ignore")


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main():
    path, shape, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.set_num_threads(1)
    if path.endswith(".pt2"):
        models = {"export": torch.export.load(path).module()}
    else:
        models = {"jit": torch.jit.load(path).eval(), "frozen": torch.jit.freeze(torch.jit.load(path).eval())}
    torch.manual_seed(0)  # the values do not change the time; these equal Graft's seed-0 input
    x = torch.randn(*[int(d) for d in shape.split("x")])
    with torch.no_grad():
        for model in models.values():
            for _ in range(warmup):  # the profiling executor optimises after its first calls
                model(x)
        for line in sys.stdin:
            runs = int(line)
            times = {name: [timed(lambda: model(x)) for _ in range(runs)] for name, model in models.items()}
            print(json.dumps({**times, "threads": torch.get_num_threads()}), flush=True)


if __name__ == "__main__":
    main()
