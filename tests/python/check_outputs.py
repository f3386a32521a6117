"""Stock PyTorch's verdict on a saved model: torch.jit.load(MODEL) run on the torch.save'd tuple
INPUTS, compared with the torch.save'd reference OUTPUTS (nested tuples, lists and dicts).

  .venv/bin/python check_outputs.py MODEL INPUTS OUTPUTS [--atol X] [--rtol Y]
Close means every tensor has max |a - b| <= atol + rtol * max |ref|: relative to the output's scale,
since float32 rounding of a folded weight grows with the magnitude of the outputs.
Prints JSON {max_abs, scale, allclose, tensors, ops}; exit 1 if not close, 2 if it does not load.
"""
import argparse
import json
import sys
import warnings

import torch

from output_utils import flatten

warnings.filterwarnings("ignore", category=FutureWarning)



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("inputs")
    ap.add_argument("outputs")
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--rtol", type=float, default=1e-5)
    args = ap.parse_args()
    try:
        model = torch.jit.load(args.model).eval()
    except Exception as e:  # noqa: BLE001 - the verdict is the point
        print(json.dumps({"error": str(e).splitlines()[0]}))
        sys.exit(2)
    inputs = torch.load(args.inputs)
    with torch.no_grad():
        got = flatten(model(*inputs))
    want = flatten(torch.load(args.outputs))
    close = len(got) == len(want)
    max_abs, scale = 0.0, 0.0
    for a, b in zip(got, want):
        if a.shape != b.shape:
            close = False
            continue
        if a.numel() == 0:
            continue
        a, b = a.double(), b.double()
        diff = torch.where(a == b, torch.zeros_like(a), (a - b).abs())
        m, s = diff.max().item(), b.abs().max().item()
        max_abs, scale = max(max_abs, m), max(scale, s)
        close = close and m <= args.atol + args.rtol * s
    ops = {}
    for node in model.graph.nodes():
        ops[node.kind()] = ops.get(node.kind(), 0) + 1
    print(json.dumps({"max_abs": max_abs, "scale": scale, "allclose": close, "tensors": len(got), "ops": ops}))
    sys.exit(0 if close else 1)


if __name__ == "__main__":
    main()
