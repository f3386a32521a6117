"""Runs a model graft-cli precision saved (a float16 or bfloat16 program with the nodes kept in
float32) the way a user would, in stock PyTorch: as it is on inputs at its dtype, after `.half()`
(or `.bfloat16()`) on the module, and on float32 inputs, each against the original at float32.
Prints JSON: whether each run is finite and how far it is from the original, whether the
original under `.half()` overflows (or fails), and the dtypes of the saved state.
With `autocast` last, the saved file is the float32 program with the kept nodes in float64, and
each is run under torch.autocast("cpu", dtype) on the float32 input instead.
Usage: .venv/bin/python check_mixed.py MIXED(.pt2|.pt) ORIGINAL INPUT.pt float16|bfloat16 [autocast]"""
import copy
import json
import sys

import torch


def load(path):
    if path.endswith(".pt2"):
        program = torch.export.load(path)
        return program.module(), {k: v for k, v in program.state_dict.items()}
    module = torch.jit.load(path)
    state = dict(module.state_dict())
    # A frozen model's weights are constants of its graph.
    for i, c in enumerate(module.graph.findAllNodes("prim::Constant")):
        if c.output().type().kind() == "TensorType" and c.hasAttribute("value"):
            state["constant_%d" % i] = c.t("value")
    return module, state


def under_autocast(module, dtype, x):
    with torch.autocast("cpu", dtype=dtype):
        return module(x)


def main(mixed_path, original_path, input_path, dtype_name, mode="half"):
    dtype = getattr(torch, dtype_name)
    x = torch.load(input_path)
    at_dtype = x.to(dtype) if x.is_floating_point() else x  # token ids stay integers
    original, _ = load(original_path)
    mixed, state = load(mixed_path)
    with torch.no_grad():
        reference = original(x)
    if mode == "autocast":
        with torch.no_grad():
            run = under_autocast(mixed, dtype, x)
            plain = under_autocast(original, dtype, x)
        print(json.dumps({
            "output_dtype": str(run.dtype).replace("torch.", ""),
            "finite": bool(run.isfinite().all()),
            "finite_plain": bool(plain.isfinite().all()),
            "max_abs": float((run.float() - reference).abs().max()),
            "state_dtypes": sorted({str(t.dtype).replace("torch.", "") for t in state.values() if t.is_floating_point()}),
        }))
        return
    with torch.no_grad():
        as_is = mixed(at_dtype)
        converted = getattr(copy.deepcopy(mixed), "half" if dtype == torch.float16 else "bfloat16")()(at_dtype)
        given_float32 = mixed(x)
        try:
            plain = getattr(copy.deepcopy(original), "half" if dtype == torch.float16 else "bfloat16")()(at_dtype)
            plain_error = None
        except Exception as e:  # a program's dtype asserts refuse .half() (torch.export keeps them)
            plain, plain_error = None, str(e).splitlines()[0]

    def away(y):
        return float((y.float() - reference).abs().max())

    print(json.dumps({
        "output_dtype": str(as_is.dtype).replace("torch.", ""),
        "finite": bool(as_is.isfinite().all()),
        "finite_after_convert": bool(converted.isfinite().all()),
        "finite_plain": plain is not None and bool(plain.isfinite().all()),
        "plain_error": plain_error,
        "max_abs": away(as_is),
        "max_abs_after_convert": away(converted),
        "max_abs_given_float32": away(given_float32),
        "state_dtypes": sorted({str(t.dtype).replace("torch.", "") for t in state.values() if t.is_floating_point()}),
    }))


if __name__ == "__main__":
    main(*sys.argv[1:6])
