"""PyTorch's own memory figures for one forward of a TorchScript file, the reference for Graft's
`profile --memory`: torch.profiler.profile(activities=[CPU], profile_memory=True) around one
forward (after a warm-up, with the graph executor's optimiser off as in Graft).

  .venv/bin/python torch_memory.py MODEL.pt SHAPE [SHAPE ...]     (SHAPE like 1x3x224x224)
  .venv/bin/python torch_memory.py PROGRAM.pt2 INPUT.pt [...]      (a torch.save'd tensor per input)
A torch.export program runs as ep.module() (fx's generated code, which drops each value after its
last use), its inputs by name in the program's order.
Prints JSON {peak_bytes, allocated_bytes, ops: [{name, allocated_bytes, net_bytes}]}: peak_bytes
is the highest running sum of the allocation events above the level at the start, allocated_bytes
their positive sum; ops are the top-level operator calls (not inside another aten:: call) in
order, each with the bytes allocated inside it and the net (allocated minus freed; the
interpreter frees an input at its last use inside the op that takes it)."""
import json
import sys
import warnings

import torch
from torch.profiler import ProfilerActivity, profile

warnings.filterwarnings("ignore")


def main():
    path, given = sys.argv[1], sys.argv[2:]
    if path.endswith(".pt2"):
        import transformers.modeling_outputs  # noqa: F401  output classes registered for torch.export.load

        program = torch.export.load(path)
        names = [s.arg.name for s in program.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
        module = program.module()
        tensors = [torch.load(f) for f in given]
        model = lambda *args: module(**dict(zip(names, args)))  # noqa: E731
        inputs = tensors
    else:
        torch._C._set_graph_executor_optimize(False)
        model = torch.jit.load(path).eval()
        torch.manual_seed(0)
        inputs = [torch.randn(*[int(d) for d in s.split("x")]) for s in given]
    with torch.no_grad():
        model(*inputs)
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            out = model(*inputs)
        del out
    events = prof.profiler.kineto_results.events()
    memory = sorted((e for e in events if e.name() == "[memory]"), key=lambda e: e.start_ns())
    level = peak = 0
    for e in memory:
        level += e.nbytes()
        peak = max(peak, level)
    calls = sorted((e for e in events if e.name().startswith("aten::")), key=lambda e: (e.start_ns(), -e.end_ns()))
    ops, end = [], -1
    for e in calls:
        if e.start_ns() >= end:  # not nested inside the previous top-level call
            ops.append({"name": e.name(), "start": e.start_ns(), "end": e.end_ns(), "allocated_bytes": 0, "net_bytes": 0})
            end = e.end_ns()
    for m in memory:
        for op in ops:
            if op["start"] <= m.start_ns() <= op["end"]:
                op["net_bytes"] += m.nbytes()
                op["allocated_bytes"] += max(0, m.nbytes())
                break
    for op in ops:
        del op["start"], op["end"]
    total = sum(max(0, e.nbytes()) for e in memory)
    print(json.dumps({"peak_bytes": peak, "allocated_bytes": total, "ops": ops}))


if __name__ == "__main__":
    main()
