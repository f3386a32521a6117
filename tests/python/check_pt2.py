"""Stock PyTorch's verdict on a .pt2 that Graft saved: torch.export.load both programs, run their
.module() on the torch.save'd INPUTS tuple and compare every output tensor.

  .venv/bin/python check_pt2.py ORIGINAL.pt2 SAVED.pt2 INPUTS.pt [--rtol R] [--atol A] [--expect OUT.pt]
With --expect, SAVED is compared with the outputs in OUT.pt (a torch.save'd list: Graft's run of
the revision it saved) instead of with ORIGINAL's.
Close means max |a - b| <= atol + rtol * max |original| per tensor. Prints JSON {max_abs, close,
ops, op_histogram}; exit 1 if not close, 2 if SAVED does not load."""
import argparse
import json
import sys
import warnings

import torch

from output_utils import compare_flat, flatten

warnings.filterwarnings("ignore")



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("original")
    ap.add_argument("saved")
    ap.add_argument("inputs")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--expect")
    args = ap.parse_args()
    try:
        saved = torch.export.load(args.saved)
    except Exception as e:  # noqa: BLE001 - the verdict is the point
        print(json.dumps({"error": str(e).splitlines()[0]}))
        sys.exit(2)
    original = torch.export.load(args.original)
    inputs = torch.load(args.inputs)
    with torch.no_grad():
        want = flatten(torch.load(args.expect)) if args.expect else flatten(original.module()(*inputs))
        got = flatten(saved.module()(*inputs))
    close, max_abs = compare_flat(want, got, args.atol, args.rtol)
    hist = {}
    for n in saved.graph.nodes:
        if isinstance(n.target, torch._ops.OpOverload):
            hist[str(n.target)] = hist.get(str(n.target), 0) + 1
    print(json.dumps({"max_abs": max_abs, "close": close, "ops": sum(hist.values()), "op_histogram": hist}))
    sys.exit(0 if close else 1)


if __name__ == "__main__":
    main()
