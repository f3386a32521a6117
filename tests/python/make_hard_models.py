"""Models that are hard on Graft, made with stock PyTorch for tst_cli, tst_run and tst_profile.

Writes into OUTDIR/hard (skipping files already there, so the build folder caches them):
  quantized_mobilenet_v2.pt   torchvision's eager-quantized MobileNetV2 (random weights, calibrated
                              on random data, converted), traced: its per-node values are quantized
  quantized_mobilenet_v2.x.pt an input, and .out.pt PyTorch's output for it
  loop_int.pt                 scripted forward(x, n: int, scale: float, flip: bool, bias: Optional[Tensor])
                              with a loop of n trips carrying a value, and an If
  loop_int.x.pt               x, and loop_int.out.pt the outputs for (x, 3, 0.5, True, None)
  loop_int.out_2_false.pt     the outputs for (x, 2, 0.5, False, None)
Run with the venv interpreter: .venv/bin/python make_hard_models.py OUTDIR
"""
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


def main():
    outdir = os.path.join(sys.argv[1], "hard")
    os.makedirs(outdir, exist_ok=True)
    make_loop(outdir)
    make_quantized(outdir)


if __name__ == "__main__":
    main()
