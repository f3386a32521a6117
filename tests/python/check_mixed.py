"""Runs a program graft-cli precision saved (casts around the nodes kept in float32) the way a
user would: torch.export.load, .half() on the module and the input, against the original program
in float32. Prints JSON: whether the half-precision outputs are finite, how far they are from the
float32 original, and how far the saved program at float32 is from it (the casts do nothing there).
Usage: .venv/bin/python check_mixed.py MIXED.pt2 ORIGINAL.pt2 INPUT.pt"""
import copy
import json
import sys

import torch


def main(mixed_path, original_path, input_path):
    x = torch.load(input_path)
    original = torch.export.load(original_path).module()
    mixed = torch.export.load(mixed_path)
    with torch.no_grad():
        reference = original(x)
        same = mixed.module()(x)
        half = copy.deepcopy(mixed.module()).half()(x.half()).float()
        plain_half = copy.deepcopy(original).half()(x.half()).float()
    print(json.dumps({
        "casts": sum(1 for n in mixed.graph.nodes
                     if n.op == "call_function" and str(n.target) in ("aten.to.dtype", "aten.type_as.default")),
        "finite_half": bool(half.isfinite().all()),
        "finite_plain_half": bool(plain_half.isfinite().all()),
        "max_abs_half": float((half - reference).abs().max()),
        "max_abs_float32": float((same - reference).abs().max()),
    }))


if __name__ == "__main__":
    main(*sys.argv[1:4])
