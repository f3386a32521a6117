"""What PyTorch itself shows of a program: print(ep.graph) and ep.graph_module.code, as JSON.
Run: .venv/bin/python fx_listing.py PROGRAM.pt2
"""
import json
import sys
import warnings

import torch

warnings.filterwarnings("ignore")
ep = torch.export.load(sys.argv[1])
print(json.dumps({"graph": str(ep.graph), "code": ep.graph_module.code}))
