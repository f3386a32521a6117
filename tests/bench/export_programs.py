"""bench_run's programs: torchvision resnet50 and vit_b_16 (weights=None, eval) exported with
torch.export for a 1x3x224x224 input and saved as OUT_DIR/NAME.pt2, skipping files that exist.

  .venv/bin/python export_programs.py OUT_DIR
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")


def main():
    import torch
    import torchvision
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name in ("resnet50", "vit_b_16"):
        path = os.path.join(outdir, name + ".pt2")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        with torch.no_grad():
            ep = torch.export.export(model, (torch.randn(1, 3, 224, 224),))
        torch.export.save(ep, path[:-4] + ".partial.pt2")
        os.replace(path[:-4] + ".partial.pt2", path)
        print(f"export_programs: {path}", flush=True)


if __name__ == "__main__":
    main()
