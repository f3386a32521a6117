"""Stock PyTorch's verdict on a rewrite: loads ORIGINAL and REWRITTEN with torch.jit.load, runs
both on the same random inputs and compares. Also reports the op kinds left in REWRITTEN.

  .venv/bin/python check_rewrite.py ORIGINAL REWRITTEN SHAPE [--atol X] [--trials N]
SHAPE is like 1x3x224x224. Prints JSON {max_abs, max_rel, allclose, ops: {kind: count}}; exit 1 if
not close. Close means max |a - b| <= atol + rtol * max |a|: relative to the output's scale, since
float32 rounding of a folded weight grows with the magnitude of the outputs (ResNet-50's random-init
logits reach ~100, where one float32 ulp is ~1e-5).
"""
import argparse
import json
import sys

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("original")
    ap.add_argument("rewritten")
    ap.add_argument("shape")
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--trials", type=int, default=2)
    args = ap.parse_args()
    shape = [int(s) for s in args.shape.split("x")]
    a = torch.jit.load(args.original).eval()
    b = torch.jit.load(args.rewritten).eval()
    torch.manual_seed(1)
    max_abs, scale = 0.0, 0.0
    with torch.no_grad():
        for _ in range(args.trials):
            x = torch.randn(*shape)
            ya, yb = a(x), b(x)
            max_abs = max(max_abs, (ya - yb).abs().max().item())
            scale = max(scale, ya.abs().max().item())
    close = max_abs <= args.atol + args.rtol * scale
    ops = {}
    for node in b.graph.nodes():
        ops[node.kind()] = ops.get(node.kind(), 0) + 1
    print(json.dumps({"max_abs": max_abs, "max_rel": max_abs / scale if scale else 0.0,
                      "allclose": close, "ops": ops}))
    sys.exit(0 if close else 1)


if __name__ == "__main__":
    main()
