"""Models for the verdict model (tst_verdict): rounding against real differences.

Writes into OUTDIR/verdict (skipping files already there):
  overflow.pt2, overflow.x.pt  Linear(16,16) -> relu -> (h*6).exp() -> sum*1e-6 added to Linear(16,4):
                               float32 output ~1e5-1e6, above float16's 65504 (stock .half() gives inf)
  cancel.pt2, .x.pt            d / |d| for d = (1 + 1e-4 * linear) - 1: finite in float32, 0/0 = NaN in
                               float16 and bfloat16, where d rounds to 0 (stock .half()/.bfloat16() agree)
  log_nan.pt2, .x.pt           log of a linear layer: NaN in float32 already, at the same places each run
  underflow.pt2, .x.pt         a linear layer times 1e-9: 0 everywhere in float16 (below its smallest
                               value), kept in bfloat16
  r18.pt, r18.x.pt             torchvision resnet18 (random weights, traced)
  r18_scaled.pt                the same with layer3.0.conv2's weight scaled by 1.01
  rms.pt2, rms.x.pt            six linears with a hand-written RMSNorm (x.pow(2).mean) that overflows
                               float16 in `norm`
  swin_t.pt2                   torchvision swin_t exported at 1x3x112x112 (buffers filled in place:
                               new_zeros then fill_ in its attention masks)
  densenet121_decomposed.pt2   torchvision densenet121 exported at 1x3x64x64, run_decompositions()
                               (max_pool2d_with_indices, whose indices ties may swap)
  verdict.json                 stock PyTorch's facts the tests check against
  subnormal.pt, .x.pt          Conv2d(32, 8) + BatchNorm2d whose scale is ~1e-41: every output is a float32
                               subnormal (below 1.18e-38), as in transformers' default-initialised MobileViT
  bloom.pt2, .x.pt, .json      a tiny random transformers Bloom (2 layers, hidden 32) exported with input_ids
                               1x8; its alibi tensor is cast to float32 in the program; the json holds stock
                               .half()'s max abs error and the output's scale
  r18_overflow.pt, .x.pt, .json  resnet18 (traced, 1x3x64x64) with layer3.0.bn2's scale times 3e4: stock .half()
                               first goes non-finite at that batch norm (found with forward hooks, in the json),
                               whose output `out += identity` then writes in place
Run with the venv interpreter: .venv/bin/python make_verdict_models.py OUTDIR
"""
import copy
import json
import os
import sys

import torch
import torch.nn as nn


class Overflow(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 16), nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        big = (h * 6).exp().sum(-1, keepdim=True) * 1e-6
        return self.fc2(x) + big


class Cancellation(nn.Module):
    """The sign of a small offset from 1, as d / |d|: 0/0 where a lower precision rounds it away."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        d = (self.fc(x) * 1e-4 + 1.0) - 1.0
        return d / d.abs()


class RmsNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class RmsNet(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(3)])
        self.norm = RmsNorm(d)
        self.head = nn.ModuleList([nn.Linear(d, d) for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        x = self.norm(x * 2000.0)  # squares beyond float16's 65504
        for layer in self.head:
            x = layer(x)
        return x


class Underflow(nn.Module):
    """A linear layer scaled by 1e-9: about 1e-9, below float16's smallest value (6e-8), so 0 there."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x) * 1e-9


class LogNan(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return torch.log(self.fc(x))


def save_atomic(obj, path, saver=torch.save):
    tmp = os.path.join(os.path.dirname(path), ".tmp." + os.path.basename(path))
    saver(obj, tmp)
    os.replace(tmp, path)


def stock(model, x, dtype):
    with torch.no_grad():
        return copy.deepcopy(model).to(dtype)(x.to(dtype)).float()


class SubnormalConvBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(32, 8, 3), nn.BatchNorm2d(8)

    def forward(self, x):
        return self.bn(self.conv(x))


def make_subnormal(out):
    """Outputs around 1e-41, where float32 has a fixed spacing of 1.4e-45: a folded batch norm's
    weights are subnormal too, so its error is a few spacings, far beyond float32's relative
    rounding at that scale."""
    if os.path.exists(os.path.join(out, "subnormal.pt")):
        return
    torch.manual_seed(0)
    model = SubnormalConvBn().eval()
    with torch.no_grad():
        model.bn.weight.copy_(torch.rand(8) * 4e-41 + 1e-41)
        model.bn.bias.zero_()
        model.bn.running_mean.zero_()
        model.bn.running_var.copy_(torch.rand(8) + 0.5)
        x = torch.randn(1, 32, 8, 8)
        y = model(x)
        assert 0 < y.abs().max() < 1.17e-38, y.abs().max()
        save_atomic(x, os.path.join(out, "subnormal.x.pt"))
        save_atomic(torch.jit.trace(model, x, check_trace=False), os.path.join(out, "subnormal.pt"), torch.jit.save)


def make_bloom(out):
    """A random tiny Bloom: the program casts its alibi tensor to float32 explicitly, so a run at
    another precision meets float32 beside its own dtype in baddbmm."""
    if os.path.exists(os.path.join(out, "bloom.json")):
        return
    from transformers import BloomConfig, BloomForCausalLM
    torch.manual_seed(0)
    model = BloomForCausalLM(BloomConfig(vocab_size=128, hidden_size=32, n_layer=2, n_head=4, use_cache=False)).eval()
    ids = torch.randint(0, 128, (1, 8))
    with torch.no_grad():
        y = model(ids).logits
        ep = torch.export.export(model, (ids,))
        half = copy.deepcopy(model).half()(ids).logits.float()
    save_atomic(ep, os.path.join(out, "bloom.pt2"), torch.export.save)
    save_atomic(ids, os.path.join(out, "bloom.x.pt"))
    facts = {"scale": float(y.abs().max()), "float16_max_abs_error": float((half - y).abs().max())}
    with open(os.path.join(out, "bloom.json"), "w") as f:
        json.dump(facts, f, indent=1)


def make_r18_overflow(out):
    if os.path.exists(os.path.join(out, "r18_overflow.json")):
        return
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        model.layer3[0].bn2.weight.mul_(3e4)
        save_atomic(x, os.path.join(out, "r18_overflow.x.pt"))
        save_atomic(torch.jit.trace(model, x, check_trace=False), os.path.join(out, "r18_overflow.pt"), torch.jit.save)
        half = copy.deepcopy(model).half()
        first = []

        def hook(name):
            def record(module, inputs, output):
                if not first and not torch.isfinite(output).all():
                    first.append(name)
            return record

        for name, module in half.named_modules():
            if not list(module.children()):
                module.register_forward_hook(hook(name))
        half(x.half())
    assert first, "stock float16 stays finite"
    with open(os.path.join(out, "r18_overflow.json"), "w") as f:
        json.dump({"first_non_finite": first[0]}, f, indent=1)


def main(outdir):
    out = os.path.join(outdir, "verdict")
    os.makedirs(out, exist_ok=True)
    make_subnormal(out)
    make_bloom(out)
    make_r18_overflow(out)
    facts_path = os.path.join(out, "verdict.json")
    if os.path.exists(facts_path):
        return
    facts = {}
    torch.manual_seed(0)
    small = [("overflow", Overflow(), torch.randn(2, 16) * 3), ("cancel", Cancellation(), torch.randn(4, 16)),
             ("log_nan", LogNan(), torch.randn(4, 16)), ("rms", RmsNet(), torch.randn(4, 64)),
             ("underflow", Underflow(), torch.randn(4, 16))]
    for name, model, x in small:
        model.eval()
        with torch.no_grad():
            y = model(x)
            save_atomic(x, os.path.join(out, name + ".x.pt"))
            save_atomic(torch.export.export(model, (x,)), os.path.join(out, name + ".pt2"), torch.export.save)
        half, bf16 = stock(model, x, torch.float16), stock(model, x, torch.bfloat16)
        facts[name] = {
            "float32_max_abs": float(y[torch.isfinite(y)].abs().max()),
            "float32_nan": int(torch.isnan(y).sum()),
            "float16_inf": int(torch.isinf(half).sum()), "float16_nan": int(torch.isnan(half).sum()),
            "bfloat16_inf": int(torch.isinf(bf16).sum()), "bfloat16_nan": int(torch.isnan(bf16).sum()),
            "float16_flushed": int(((half == 0) & (y != 0)).sum()), "bfloat16_flushed": int(((bf16 == 0) & (y != 0)).sum()),
        }
    # What each net is for, checked here so a change of torch cannot silently void a test.
    assert facts["overflow"]["float32_max_abs"] > 65504 and facts["overflow"]["float16_inf"] > 0, facts["overflow"]
    assert facts["cancel"]["float32_nan"] == 0 and facts["cancel"]["float16_nan"] > 0, facts["cancel"]
    assert facts["cancel"]["bfloat16_nan"] > 0, facts["cancel"]
    assert facts["log_nan"]["float32_nan"] > 0, facts["log_nan"]
    assert facts["underflow"]["float16_flushed"] == 32 and facts["underflow"]["bfloat16_flushed"] == 0, facts["underflow"]
    rms, rms_x = small[3][1], small[3][2]
    with torch.no_grad():
        facts["rms"]["float16_max_abs_error"] = float((stock(rms, rms_x, torch.float16) - rms(rms_x)).abs().max())
    assert facts["rms"]["float16_max_abs_error"] > 0.1, facts["rms"]

    import torchvision
    torch.manual_seed(0)
    r18 = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 64, 64)
    save_atomic(x, os.path.join(out, "r18.x.pt"))
    with torch.no_grad():
        save_atomic(torch.jit.trace(r18, x, check_trace=False), os.path.join(out, "r18.pt"), torch.jit.save)
        scaled = copy.deepcopy(r18)
        scaled.layer3[0].conv2.weight.mul_(1.01)
        save_atomic(torch.jit.trace(scaled, x, check_trace=False), os.path.join(out, "r18_scaled.pt"), torch.jit.save)
        facts["r18_scaled"] = {"module_path": "layer3.0.conv2",
                               "output_max_abs": float((r18(x) - scaled(x)).abs().max())}
        torch.manual_seed(0)
        swin = torchvision.models.swin_t().eval()
        save_atomic(torch.export.export(swin, (torch.randn(1, 3, 112, 112),)), os.path.join(out, "swin_t.pt2"), torch.export.save)
        dense = torchvision.models.densenet121().eval()
        ep = torch.export.export(dense, (torch.randn(1, 3, 64, 64),)).run_decompositions()
        save_atomic(ep, os.path.join(out, "densenet121_decomposed.pt2"), torch.export.save)
    with open(facts_path, "w") as f:
        json.dump(facts, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
