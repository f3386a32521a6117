"""Programs for `--pass cse` (tst_rewrite), with stock torch.fx's own CSE as the reference.

Writes into OUTDIR/cse (skipping files already there):
  twins.pt2, .inputs.pt   two Linear(8, 8) with equal weights and zero biases, two LayerNorms (weights 1,
                          biases 0) and two zero tokens, as DeiT's CLS and distillation tokens start; one
                          real common subexpression (relu(h) computed twice)
  swin_v2_t.pt2, .inputs.pt  torchvision swin_v2_t exported at 1x3x128x128 (aten::index reads a buffer
                          through a constant index list)
  cse.json                for each: state_dict keys, and the ops (OpOverload call_functions) before and
                          after stock torch.fx CSEPass on the program's graph module
Run: .venv/bin/python make_cse_models.py OUTDIR
"""
import json
import os
import sys
import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore")


class Twins(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)
        self.norm1, self.norm2 = nn.LayerNorm(8), nn.LayerNorm(8)
        self.cls, self.dist = nn.Parameter(torch.zeros(1, 8)), nn.Parameter(torch.zeros(1, 8))
        with torch.no_grad():
            self.b.weight.copy_(self.a.weight)
            self.a.bias.zero_()
            self.b.bias.zero_()

    def forward(self, x):
        h = self.norm1(self.a(x) + self.cls) + self.norm2(self.b(x) + self.dist)
        return torch.relu(h) * torch.relu(h)


def swin_v2_t():
    import torchvision
    return torchvision.models.swin_v2_t()


def ops(graph):
    return sum(isinstance(n.target, torch._ops.OpOverload) for n in graph.nodes)


def main(outdir):
    out = os.path.join(outdir, "cse")
    os.makedirs(out, exist_ok=True)
    facts_path = os.path.join(out, "cse.json")
    if os.path.exists(facts_path):
        return
    from torch.fx.passes.dialect.common.cse_pass import CSEPass
    facts = {}
    for name, factory, shape in [("twins", Twins, (3, 8)), ("swin_v2_t", swin_v2_t, (1, 3, 128, 128))]:
        torch.manual_seed(0)
        model = factory().eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            ep = torch.export.export(model, (x,))
        torch.export.save(ep, os.path.join(out, name + ".pt2"))
        torch.save((x,), os.path.join(out, name + ".inputs.pt"))
        before = ops(ep.graph)
        after = ops(CSEPass()(ep.graph_module).graph_module.graph)
        facts[name] = {"state_dict": sorted(ep.state_dict), "ops_before": before, "ops_after_stock_cse": after}
    with open(facts_path, "w") as f:
        json.dump(facts, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
