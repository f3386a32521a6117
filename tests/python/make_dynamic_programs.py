"""torch.export programs that compute with their symbolic sizes, each run by stock PyTorch at two
sizes of its dynamic dimension:
  <name>.pt2, <name>.ref.json (ops as torch.export counts them: call_function nodes whose target
  is an operator overload; the sizes), <name>.<size>.in.pt and <name>.<size>.out.pt
  view_dyn   Linear, then view(x.shape[0], -1, 4): aten.sym_size.int feeding a size list
  arith_dyn  reshape(n * 2, -1) + (n // 2 + 1): Python arithmetic on SymInts
Run: .venv/bin/python make_dynamic_programs.py OUTDIR
"""
import json
import os
import sys

import torch


class ViewDyn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).view(x.shape[0], -1, 4) * 2


class ArithDyn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        n = x.shape[0]
        return self.fc(x).reshape(n * 2, -1) + (n // 2 + 1)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, cls in (("view_dyn", ViewDyn), ("arith_dyn", ArithDyn)):
        batch = torch.export.Dim("batch", min=2, max=64)
        ep = torch.export.export(cls().eval(), (torch.randn(4, 8),), dynamic_shapes=({0: batch},))
        torch.export.save(ep, os.path.join(out, name + ".pt2"))
        ops = sum(1 for n in ep.graph.nodes if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload))
        sizes = [4, 13]
        for size in sizes:
            x = torch.randn(size, 8)
            torch.save(x, os.path.join(out, "%s.%d.in.pt" % (name, size)))
            torch.save(ep.module()(x), os.path.join(out, "%s.%d.out.pt" % (name, size)))
        with open(os.path.join(out, name + ".ref.json"), "w") as f:
            json.dump({"ops": ops, "sizes": sizes}, f)


if __name__ == "__main__":
    main(sys.argv[1])
