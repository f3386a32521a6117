"""Stock PyTorch's verdict on a dynamic program that Graft saved: torch.export.load it, run its
.module() at each given size and compare with the reference outputs that stock PyTorch computed
from the original program at that size.

  .venv/bin/python check_dynamic_save.py SAVED.pt2 IN_1.pt OUT_1.pt [IN_2.pt OUT_2.pt ...] [--rtol R] [--atol A]
An input file holds one tensor (the only argument) or a list of the program's flat inputs (keyword
arguments too), which the saved program's in_spec puts back in place.
Prints JSON {runs: [{input_shape, max_abs, close, meta_checked, meta_mismatches}], close,
range_constraints: {symbol: [min, max]}, symbolic_inputs: [bool per user input placeholder: any of
its sizes symbolic], symbolic_values (nodes whose metadata is symbolic), error}.
meta_mismatches lists the values whose saved metadata (a shape, or a SymInt's expression, with the
run's symbol values substituted) differs from what the run computed: metadata that holds at one
size only shows up at the other. Exit 1 if a run is not close, 2 if SAVED does not load or run."""
import argparse
import json
import sys
import warnings

import sympy
import torch
import torch.utils._pytree as pytree
import transformers.modeling_outputs  # noqa: F401  output classes registered for torch.export.load

from output_utils import compare_flat, flatten

warnings.filterwarnings("ignore")


def bound(v):
    """A range bound as JSON: a number, or null where it is unbounded (int_oo)."""
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):
        return None


class Recorder(torch.fx.Interpreter):
    """Runs a graph module node by node and keeps every node's value."""

    def __init__(self, module):
        super().__init__(module)
        self.values = {}

    def run_node(self, n):
        out = super().run_node(n)
        self.values[n.name] = out
        return out


def is_symbolic(val):
    if isinstance(val, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return True
    return isinstance(val, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in val.shape)


def check_meta(module, flat):
    """Runs `module` on its flat inputs node by node; returns (values compared, names whose
    metadata disagrees)."""
    recorder = Recorder(module)
    with torch.no_grad():
        recorder.run(*flat)
    bindings = {}
    for n in module.graph.nodes:
        if n.op == "placeholder" and isinstance(n.meta.get("val"), torch.Tensor):
            for d, actual in zip(n.meta["val"].shape, recorder.values[n.name].shape):
                if isinstance(d, torch.SymInt) and isinstance(d.node.expr, sympy.Symbol):
                    bindings[d.node.expr] = actual

    def value(d):
        return int(d.node.expr.xreplace(bindings)) if isinstance(d, torch.SymInt) else d

    checked, mismatches = 0, []
    for n in module.graph.nodes:
        meta, actual = n.meta.get("val"), recorder.values.get(n.name)
        if isinstance(meta, torch.Tensor) and isinstance(actual, torch.Tensor):
            checked += 1
            if [value(d) for d in meta.shape] != list(actual.shape):
                mismatches.append(n.name)
        elif isinstance(meta, torch.SymInt) and isinstance(actual, int):
            checked += 1
            if value(meta) != actual:
                mismatches.append(n.name)
    return checked, mismatches


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("saved")
    ap.add_argument("pairs", nargs="+", help="input file, reference output file, ...")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    args = ap.parse_args()
    if len(args.pairs) % 2:
        ap.error("inputs and outputs come in pairs")
    report = {"runs": [], "close": True}
    try:
        ep = torch.export.load(args.saved)
    except Exception as e:  # noqa: BLE001 - the verdict is the point
        print(json.dumps({"error": "load: " + str(e).splitlines()[0]}))
        sys.exit(2)
    report["range_constraints"] = {str(k): [bound(v.lower), bound(v.upper)] for k, v in ep.range_constraints.items()}
    user_inputs = [s.arg.name for s in ep.graph_signature.input_specs if s.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    report["symbolic_inputs"] = [
        any(isinstance(d, torch.SymInt) for d in placeholders[name].meta["val"].shape) for name in user_inputs
    ]
    report["symbolic_values"] = sum(1 for n in ep.graph.nodes if n.op == "call_function" and is_symbolic(n.meta.get("val")))
    module = ep.module()
    for i in range(0, len(args.pairs), 2):
        loaded = torch.load(args.pairs[i])
        flat = list(loaded) if isinstance(loaded, (list, tuple)) else [loaded]
        call_args, call_kwargs = pytree.tree_unflatten(flat, ep.call_spec.in_spec)
        shape = [list(t.shape) for t in flat] if len(flat) > 1 else list(flat[0].shape)
        want = flatten(torch.load(args.pairs[i + 1]))
        try:
            with torch.no_grad():
                got = flatten(module(*call_args, **call_kwargs))
        except Exception as e:  # noqa: BLE001
            report["error"] = "run at %s: %s" % (shape, str(e).splitlines()[0])
            print(json.dumps(report))
            sys.exit(2)
        close, max_abs = compare_flat(want, got, args.atol, args.rtol)
        checked, mismatches = check_meta(module, flat)
        report["runs"].append({"input_shape": shape, "max_abs": max_abs, "close": close, "meta_checked": checked,
                               "meta_mismatches": mismatches})
        report["close"] = report["close"] and close
    print(json.dumps(report))
    sys.exit(0 if report["close"] else 1)


if __name__ == "__main__":
    main()
