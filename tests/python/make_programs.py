"""torch.export programs (.pt2) for Graft's tests, made by the venv's torch 2.14, with what stock
PyTorch says about each.

Writes into OUTDIR/pt2 (skipping programs already there):
  <name>.pt2        torch.export.save(torch.export.export(model, args), ...)
  <name>.pt         the TorchScript trace of the same model (for cross-format compares)
  <name>.inputs.pt  torch.save'd tuple of the example inputs
  <name>.ref.json   ops (call_function nodes whose target is an OpOverload), input shapes,
                    whether Graft is expected to open it yet ("supported")
Run: .venv/bin/python make_programs.py OUTDIR [NAME ...]
"""
import json
import os
import sys
import warnings

import torch
import torchvision

warnings.filterwarnings("ignore")


class DynamicBatch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


class WithCond(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: self.fc(t).relu(), lambda t: self.fc(t).sigmoid(), (x,))


class WithIf(WithCond):
    """WithCond with a Python `if`: what torch.jit.script makes of the same model."""

    def forward(self, x):
        if bool(x.sum() > 0):
            return self.fc(x).relu()
        return self.fc(x).sigmoid()


class WithWhileLoop(torch.nn.Module):
    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop
        return while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t * 2), (torch.tensor(0), x))[1]


def bert():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=128, max_position_embeddings=64, return_dict=False)
    return BertModel(cfg)


class VitDynamic(torch.nn.Module):
    """A 2-layer Hugging Face ViT (random weights): five eval-mode dropouts, sizes from the batch.
    Returns the hidden states as a plain tensor: torch.export.load of a program returning HF's
    output class needs transformers' output classes imported first, which stock readers do not do."""

    def __init__(self):
        super().__init__()
        from transformers import ViTConfig, ViTModel
        cfg = ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, image_size=32,
                        patch_size=8, num_channels=3)
        self.vit = ViTModel(cfg, add_pooling_layer=False)

    def forward(self, x):
        return self.vit(x).last_hidden_state


def vit_dynamic():
    return VitDynamic()


def image(size=224):
    return (torch.randn(1, 3, size, size),)


# name: (factory, inputs, dynamic_shapes, decompose, supported by Graft's importer today)
PROGRAMS = {
    "resnet18": (torchvision.models.resnet18, image, None, False, True),
    "mobilenet_v3_small": (torchvision.models.mobilenet_v3_small, image, None, False, True),
    "vit_b_16": (torchvision.models.vit_b_16, image, None, False, True),
    "bert": (bert, lambda: (torch.randint(0, 1000, (1, 16)),), None, False, True),
    "resnet18_decomposed": (torchvision.models.resnet18, image, None, True, True),
    "dynamic_batch": (DynamicBatch, lambda: (torch.randn(4, 8),), ({0: torch.export.Dim("batch", min=2, max=64)},),
                      False, True),
    "vit_dynamic": (vit_dynamic, lambda: (torch.randn(2, 3, 32, 32),),
                    ({0: torch.export.Dim("batch", min=1, max=16)},), False, True),
    "cond": (WithCond, lambda: (torch.randn(2, 8),), None, False, True),
    "while_loop": (WithWhileLoop, lambda: (torch.randn(2, 3),), None, False, False),
}


def make(outdir, name):
    base = os.path.join(outdir, name)
    if os.path.exists(base + ".ref.json"):
        return
    factory, make_inputs, dynamic, decompose, supported = PROGRAMS[name]
    torch.manual_seed(0)
    model = factory().eval()
    inputs = make_inputs()
    with torch.no_grad():
        ep = torch.export.export(model, inputs, dynamic_shapes=dynamic)
        if decompose:
            ep = ep.run_decompositions()
        torch.export.save(ep, base + ".pt2")
        if name == "cond":  # both branches: the scripted twin, with the same weights
            twin = WithIf().eval()
            twin.load_state_dict(model.state_dict())
            torch.jit.script(twin).save(base + ".pt")
        elif PROGRAMS[name][4]:
            torch.jit.trace(model, inputs, check_trace=False, strict=False).save(base + ".pt")
    torch.save(tuple(inputs), base + ".inputs.pt")
    ops = sum(isinstance(n.target, torch._ops.OpOverload) for n in ep.graph.nodes)
    # Every tensor value's shape as the program's metadata has it (a symbolic size by its name).
    shapes = {}
    for n in ep.graph.nodes:
        val = n.meta.get("val")
        if n.op in ("call_function", "placeholder") and isinstance(val, torch.Tensor):
            shapes[n.name] = {"shape": [d if isinstance(d, int) else str(d) for d in val.shape],
                              "dtype": str(val.dtype).replace("torch.", "")}
    # The range each symbolic dimension may take (None: unbounded).
    ranges = {str(sym): {"min": int(vr.lower), "max": int(vr.upper) if vr.upper.is_finite else None}
              for sym, vr in ep.range_constraints.items()}
    ref = {"ops": ops, "input_shapes": [list(t.shape) for t in inputs], "supported": supported,
           "decomposed": decompose, "shapes": shapes, "ranges": ranges}
    with open(base + ".ref.json", "w") as f:
        json.dump(ref, f, indent=1)
    print(f"programs: {name}: {ops} ops", flush=True)


def main():
    outdir = os.path.join(sys.argv[1], "pt2")
    os.makedirs(outdir, exist_ok=True)
    for name in sys.argv[2:] or list(PROGRAMS):
        make(outdir, name)
    with open(os.path.join(outdir, "programs.json"), "w") as f:
        json.dump(list(PROGRAMS), f)


if __name__ == "__main__":
    main()
