"""A deep CNN for bench_reduce's memory figure: torchvision's resnet152 with random weights
(seeded), traced at a small input. Its activations grow block by block until float16 overflows
inside layer3, as stock model.half() does on it; reduce cuts that down to one node.
Writes OUT/resnet152.pt and OUT/resnet152.x.pt (the 1x3x64x64 input).
Usage: .venv/bin/python make_deep_cnn.py OUT"""
import os
import sys

import torch
import torchvision


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = torchvision.models.resnet152(weights=None).eval()
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        traced = torch.jit.trace(model, x)
    traced.save(os.path.join(out, "resnet152.pt"))
    torch.save(x, os.path.join(out, "resnet152.x.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
