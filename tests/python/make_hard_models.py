"""Models that are hard on Graft, made with stock PyTorch for tst_cli, tst_run and tst_profile.

Writes into OUTDIR/hard (skipping files already there, so the build folder caches them):
  quantized_mobilenet_v2.pt   torchvision's eager-quantized MobileNetV2 (random weights, calibrated
                              on random data, converted), traced: its per-node values are quantized
  quantized_mobilenet_v2.x.pt an input, and .out.pt PyTorch's output for it
  loop_int.pt                 scripted forward(x, n: int, scale: float, flip: bool, bias: Optional[Tensor])
                              with a loop of n trips carrying a value, and an If
  loop_int.x.pt               x, and loop_int.out.pt the outputs for (x, 3, 0.5, True, None)
  loop_int.out_2_false.pt     the outputs for (x, 2, 0.5, False, None)
  quantized_fx_cnn.pt         a small CNN quantized with torch.ao.quantization.quantize_fx
                              (prepare_fx, calibration on random data, convert_fx), traced;
                              .x.pt an input and .out.pt PyTorch's output for it
  <model>.qparams.json        for both quantized models: the first quantized conv's weight as
                              PyTorch reports it (qscheme, axis, scales, zero points)
  retinanet_script.pt         torchvision's RetinaNet (resnet18 FPN backbone, random weights),
                              scripted: its inlined calls of modules' own methods name a
                              pseudo-module "SELF", whose deep empty clusters crashed Graphviz
Run with the venv interpreter: .venv/bin/python make_hard_models.py OUTDIR
"""
import json
import os
import sys
from typing import Optional

import torch
import torchvision


class LoopInt(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x, n: int, scale: float, flip: bool, bias: Optional[torch.Tensor]):
        h = x
        for i in range(n):
            h = torch.relu(self.lin(h)) * scale + i
        if flip:
            h = -h
        if bias is not None:
            h = h + bias
        return h, n * 2


def save_atomic(obj, path, saver=torch.save):
    tmp = path + ".tmp"
    saver(obj, tmp)
    os.replace(tmp, path)


def make_quantized(outdir):
    path = os.path.join(outdir, "quantized_mobilenet_v2.pt")
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    # quantize=True without weights: fused, observed on random data, converted (no download).
    model = torchvision.models.quantization.mobilenet_v2(weights=None, quantize=True).eval()
    x = torch.randn(1, 3, 224, 224)
    traced = torch.jit.trace(model, x, check_trace=False)
    save_atomic(x, os.path.join(outdir, "quantized_mobilenet_v2.x.pt"))
    save_atomic(traced(x), os.path.join(outdir, "quantized_mobilenet_v2.out.pt"))
    traced.save(path + ".tmp")
    os.replace(path + ".tmp", path)


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(self.pool(x), 1))


def make_fx_quantized(outdir):
    path = os.path.join(outdir, "quantized_fx_cnn.pt")
    if os.path.exists(path):
        return
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.manual_seed(0)
    model = SmallCnn().eval()
    x = torch.randn(2, 3, 32, 32)
    prepared = prepare_fx(model, get_default_qconfig_mapping("x86"), example_inputs=(x,))
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn(4, 3, 32, 32))
    converted = convert_fx(prepared).eval()
    traced = torch.jit.trace(converted, x, check_trace=False)
    save_atomic(x, os.path.join(outdir, "quantized_fx_cnn.x.pt"))
    with torch.no_grad():
        save_atomic(traced(x), os.path.join(outdir, "quantized_fx_cnn.out.pt"))
    traced.save(path + ".tmp")
    os.replace(path + ".tmp", path)


def write_qparams(outdir, name):
    """The first quantized conv's weight of the saved model, as PyTorch reports it."""
    out = os.path.join(outdir, name + ".qparams.json")
    if os.path.exists(out):
        return
    model = torch.jit.load(os.path.join(outdir, name + ".pt"))
    for path, module in model.named_modules():
        if "Conv" in module.original_name and hasattr(module, "_packed_params"):
            weight, _ = module._packed_params.unpack()
            break
    else:
        raise SystemExit(name + ": no quantized conv")
    facts = {"module": path, "qscheme": str(weight.qscheme()).replace("torch.", "")}
    if weight.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        facts.update(scale_min=weight.q_scale(), scale_max=weight.q_scale(),
                     zero_point_min=weight.q_zero_point(), zero_point_max=weight.q_zero_point())
    else:
        scales, zps = weight.q_per_channel_scales(), weight.q_per_channel_zero_points()
        facts.update(axis=weight.q_per_channel_axis(), channels=scales.numel(),
                     scale_min=scales.min().item(), scale_max=scales.max().item(),
                     zero_point_min=zps.min().item(), zero_point_max=zps.max().item())
    with open(out + ".tmp", "w") as f:
        json.dump(facts, f, indent=1)
    os.replace(out + ".tmp", out)


def make_loop(outdir):
    path = os.path.join(outdir, "loop_int.pt")
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    model = torch.jit.script(LoopInt().eval())
    x = torch.randn(2, 8)
    save_atomic(x, os.path.join(outdir, "loop_int.x.pt"))
    with torch.no_grad():
        save_atomic(model(x, 3, 0.5, True, None)[0], os.path.join(outdir, "loop_int.out.pt"))
        save_atomic(model(x, 2, 0.5, False, None)[0], os.path.join(outdir, "loop_int.out_2_false.pt"))
    model.save(path + ".tmp")
    os.replace(path + ".tmp", path)


def make_retinanet(outdir):
    path = os.path.join(outdir, "retinanet_script.pt")
    if os.path.exists(path):
        return
    from torchvision.models.detection import RetinaNet
    from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7

    torch.manual_seed(0)
    backbone = resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=5, returned_layers=[2, 3, 4],
                                   extra_blocks=LastLevelP6P7(256, 256))
    model = torch.jit.script(RetinaNet(backbone, num_classes=5, min_size=128, max_size=160).eval())
    model.save(path + ".tmp")
    os.replace(path + ".tmp", path)


def main():
    outdir = os.path.join(sys.argv[1], "hard")
    os.makedirs(outdir, exist_ok=True)
    # First: once quantize_fx has run in this process, scripting torchvision's Conv2d fails
    # ("builtin cannot be used as a value" at F.pad).
    make_retinanet(outdir)
    make_loop(outdir)
    make_quantized(outdir)
    make_fx_quantized(outdir)
    for name in ("quantized_mobilenet_v2", "quantized_fx_cnn"):
        write_qparams(outdir, name)


if __name__ == "__main__":
    main()
