"""Model files that try to reach outside the process, for tst_untrusted. Each names MARKER (a file
that must never appear) and VICTIM (a file of 64 bytes that must never change) under OUTDIR:
  setstate_writes.pt    a class whose __setstate__ saves a tensor and fills a mapped file
  setstate_loops.pt     a class whose __setstate__ never returns
  setstate_benign.pt    a class whose __setstate__ only sets attributes (opens; runs)
  forward_saves.pt      forward calls torch.save
  forward_maps.pt       forward maps VICTIM with torch.from_file(shared=True) and fills it
  branch_saves.pt       torch.save inside an if block
  loop_saves.pt         torch.save inside a loop
  method_saves.pt       torch.save in a method forward calls
  forever.pt            forward never returns
  deep_parens.pt        forward returns x inside 100,000 parentheses
  long_sum.pt           forward returns a sum of 100,000 terms
  deep_ok.pt            190 parentheses around a sum of 2,200 terms: within the limits, opens
  save.pt2              a torch.export program with an aten.save node
  maps.pt2              a torch.export program with aten.from_file(shared=True) and fill_
Run: .venv/bin/python make_hostile_files.py OUTDIR
"""
import json
import os
import sys
import zipfile
import importlib.util

import torch

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "."
MARKER = os.path.join(OUT, "MARKER")
VICTIM = os.path.join(OUT, "VICTIM")


# TorchScript reads no Python globals: the classes are written out with the paths as literals.
MODELS = """
from typing import Tuple

import torch


# Pickled through __getstate__/__setstate__, as quantized modules are; this one only sets
# attributes. The two below differ only in their __setstate__.
class SetstateBenign(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    @torch.jit.export
    def __getstate__(self):
        return (self.scale, self.training)

    @torch.jit.export
    def __setstate__(self, state: Tuple[float, bool]):
        self.scale = state[0]
        self.training = state[1]

    def forward(self, x):
        return x * self.scale


class SetstateWrites(SetstateBenign):
    @torch.jit.export
    def __setstate__(self, state: Tuple[float, bool]):
        torch.save(torch.ones(1), {marker!r})
        mapped = torch.from_file({victim!r}, True, 8).fill_(4321.0)
        self.scale = state[0] + float(mapped[0]) * 0.0
        self.training = state[1]


class SetstateLoops(SetstateBenign):
    @torch.jit.export
    def __setstate__(self, state: Tuple[float, bool]):
        i = 0
        while i >= 0:
            i = i + 1
        self.scale = state[0]
        self.training = state[1]


class ForwardSaves(torch.nn.Module):
    def forward(self, x):
        torch.save(x, {marker!r})
        return x + 1


class ForwardMaps(torch.nn.Module):
    def forward(self, x):
        mapped = torch.from_file({victim!r}, True, 8).fill_(4321.0)
        return x + mapped.sum() * 0.0


class BranchSaves(torch.nn.Module):
    def forward(self, x):
        if bool(x.sum() > -1e30):
            torch.save(x, {marker!r})
        return x + 1


class LoopSaves(torch.nn.Module):
    def forward(self, x):
        for i in range(2):
            torch.save(x, {marker!r})
            x = x + i
        return x


class MethodSaves(torch.nn.Module):
    @torch.jit.export
    def keep(self, x):
        torch.save(x, {marker!r})
        return x

    def forward(self, x):
        return self.keep(x) + 1


class Forever(torch.nn.Module):
    def forward(self, x):
        i = 0
        while i >= 0:
            i = i + 1
        return x + i


class Plain(torch.nn.Module):
    def forward(self, x):
        return x + 1
"""


def replace_code(src, dst, old, new):
    """Copies a TorchScript archive, replacing `old` by `new` in its forward's code."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as b:
        for info in a.infolist():
            data = a.read(info.filename)
            if "/code/" in info.filename and info.filename.endswith(".py") and old in data:
                data = data.replace(old, new)
            b.writestr(info.filename, data)


def edit_program(src, dst, change):
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as b:
        for info in a.infolist():
            data = a.read(info.filename)
            if info.filename.endswith("models/model.json"):
                model = json.loads(data)
                change(model["graph_module"]["graph"])
                data = json.dumps(model).encode()
            b.writestr(info.filename, data)


def tensor(name):
    return {"as_tensor": {"name": name}}


def main():
    os.makedirs(OUT, exist_ok=True)
    source = os.path.join(OUT, "hostile_models.py")
    with open(source, "w") as f:
        f.write(MODELS.format(marker=MARKER, victim=VICTIM))
    spec = importlib.util.spec_from_file_location("hostile_models", source)
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    with open(VICTIM, "wb") as f:
        f.write(bytes(range(64)))
    for name, cls in [("setstate_writes", "SetstateWrites"), ("setstate_loops", "SetstateLoops"),
                      ("setstate_benign", "SetstateBenign"), ("forward_saves", "ForwardSaves"),
                      ("forward_maps", "ForwardMaps"), ("branch_saves", "BranchSaves"), ("loop_saves", "LoopSaves"),
                      ("method_saves", "MethodSaves"), ("forever", "Forever")]:
        torch.jit.script(getattr(models, cls)().eval()).save(os.path.join(OUT, name + ".pt"))
    plain = os.path.join(OUT, "plain_script.pt")
    torch.jit.script(models.Plain().eval()).save(plain)
    depth = 100_000
    replace_code(plain, os.path.join(OUT, "deep_parens.pt"), b"torch.add(x, 1)",
                 b"torch.add(" + b"(" * depth + b"x" + b")" * depth + b", 1)")
    replace_code(plain, os.path.join(OUT, "long_sum.pt"), b"torch.add(x, 1)",
                 b"torch.add(" + b" + ".join([b"x"] * depth) + b", 1)")

    # Within Graft's limits (core/io/code_scan.h): 190 parentheses deep, a sum of 2,200 terms.
    replace_code(plain, os.path.join(OUT, "deep_ok.pt"), b"torch.add(x, 1)",
                 b"torch.add(" + b"(" * 190 + b" + ".join([b"x"] * 2200) + b")" * 190 + b", 1)")

    ep = torch.export.export(models.Plain().eval(), (torch.randn(2, 8),))
    program = os.path.join(OUT, "plain.pt2")
    torch.export.save(ep, program)

    def add_save(graph: dict):
        graph["nodes"].insert(0, {"target": "torch.ops.aten.save.default",
                         "inputs": [{"name": "item", "arg": tensor("x"), "kind": 1},
                                    {"name": "filename", "arg": {"as_string": MARKER}, "kind": 1}],
                         "outputs": [], "metadata": {}, "name": "save"})

    def add_map(graph: dict):
        meta = json.loads(json.dumps(graph["tensor_values"]["x"]))
        meta["sizes"] = [{"as_int": 8}]
        meta["strides"] = [{"as_int": 1}]
        graph["tensor_values"]["mapped"] = graph["tensor_values"]["filled"] = meta
        nodes = graph["nodes"]
        nodes.insert(0, {"target": "torch.ops.aten.from_file.default",
                         "inputs": [{"name": "filename", "arg": {"as_string": VICTIM}, "kind": 1},
                                    {"name": "shared", "arg": {"as_bool": True}, "kind": 1},
                                    {"name": "size", "arg": {"as_int": 8}, "kind": 1}],
                         "outputs": [tensor("mapped")], "metadata": {}, "name": "mapped"})
        nodes.insert(1, {"target": "torch.ops.aten.fill_.Scalar",
                         "inputs": [{"name": "self", "arg": tensor("mapped"), "kind": 1},
                                    {"name": "value", "arg": {"as_float": 4321.0}, "kind": 1}],
                         "outputs": [tensor("filled")], "metadata": {}, "name": "filled"})

    edit_program(program, os.path.join(OUT, "save.pt2"), add_save)
    edit_program(program, os.path.join(OUT, "maps.pt2"), add_map)
    torch.save(torch.randn(2, 8), os.path.join(OUT, "x.pt"))


if __name__ == "__main__":
    main()
