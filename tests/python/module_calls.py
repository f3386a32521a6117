"""What stock PyTorch says about a program's module calls: torch.export numbers a module's calls
in its nn_module_stack keys (`layer1.0.relu`, then `layer1.0.relu@1` for the second call).

Prints JSON {"calls": {module path: number of calls}, "groups": number of distinct calls} for
the program at PROGRAM.pt2. With --export NAME, first exports torchvision's NAME (random weights,
one 1x3x64x64 image) to PROGRAM.pt2.
Run: .venv/bin/python module_calls.py [--export NAME] PROGRAM.pt2
"""
import json
import sys
import warnings

import torch

warnings.filterwarnings("ignore")


def main():
    args = sys.argv[1:]
    if args[0] == "--export":
        import torchvision
        torch.manual_seed(0)
        model = getattr(torchvision.models, args[1])().eval()
        with torch.no_grad():
            torch.export.save(torch.export.export(model, (torch.randn(1, 3, 64, 64),)), args[2])
        args = args[2:]
    program = torch.export.load(args[0])
    keys = {}
    for node in program.graph.nodes:
        for key, (path, _type) in (node.meta.get("nn_module_stack") or {}).items():
            if path:  # the root module is no group
                keys.setdefault(path, set()).add(key)
    calls = {path: len(k) for path, k in keys.items()}
    print(json.dumps({"calls": calls, "groups": sum(calls.values())}))


if __name__ == "__main__":
    main()
