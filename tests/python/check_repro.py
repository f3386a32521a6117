"""Runs a .pt2 that graft-cli reduce wrote the way a user would: torch.export.load, then the
program on its own sample inputs in float32 and, cast with .half(), in float16.
Prints JSON: call_function node count, sample input shapes, and whether each output is finite
and how far the two precisions part. Usage: .venv/bin/python check_repro.py REPRO.pt2"""
import copy
import json
import sys

import torch


def main(path):
    ep = torch.export.load(path)
    args, kwargs = ep.example_inputs
    module = ep.module()
    with torch.no_grad():
        full = module(*args, **kwargs)
        half = copy.deepcopy(module).half()(*[a.half() for a in args], **kwargs).float()
    print(json.dumps({
        "nodes": sum(1 for n in ep.graph.nodes if n.op == "call_function"),
        "inputs": [list(a.shape) for a in args],
        "finite_float32": bool(full.isfinite().all()),
        "finite_float16": bool(half.isfinite().all()),
        "max_abs_finite": float((full - half).abs().nan_to_num(0, 0, 0).max()),
    }))


if __name__ == "__main__":
    main(sys.argv[1])
