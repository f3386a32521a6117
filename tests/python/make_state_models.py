"""Programs whose state_dict a rewrite must keep (tst_rewrite rewritesKeepUnconsumedState), with
stock PyTorch's answer for each.

Writes into OUTDIR/state (skipping files already there):
  tied.pt2, .inputs.pt   an embedding whose weight the output Linear shares (tied, as language
                         models tie embed_tokens and lm_head) and a BatchNorm1d in eval, whose
                         num_batches_tracked the graph never reads
  keys.json              "tied": tied.pt2's state_dict keys; "resnet18_fused": the keys of
                         torchvision's resnet18 after stock torch.fx's conv+batch-norm fusion
                         (torch.fx.experimental.optimization.fuse)
Run: .venv/bin/python make_state_models.py OUTDIR
"""
import json
import os
import sys
import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore")


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.emb.weight
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x):
        return self.head(self.bn(self.emb(x).transpose(1, 2)).transpose(1, 2))


def main(outdir):
    out = os.path.join(outdir, "state")
    os.makedirs(out, exist_ok=True)
    keys_path = os.path.join(out, "keys.json")
    if os.path.exists(keys_path):
        return
    torch.manual_seed(0)
    model = Tied().eval()
    x = torch.randint(0, 10, (2, 3))
    ep = torch.export.export(model, (x,))
    torch.export.save(ep, os.path.join(out, "tied.pt2"))
    torch.save((x,), os.path.join(out, "tied.inputs.pt"))
    import torchvision
    from torch.fx.experimental.optimization import fuse
    fused = fuse(torchvision.models.resnet18().eval())
    with open(keys_path, "w") as f:
        json.dump({"tied": sorted(ep.state_dict), "resnet18_fused": sorted(fused.state_dict())}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
