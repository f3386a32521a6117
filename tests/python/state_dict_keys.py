"""The state_dict keys of a .pt2 (torch.export.load), as a JSON list on stdout.

  .venv/bin/python state_dict_keys.py PROGRAM.pt2
"""
import json
import sys
import warnings

import torch

warnings.filterwarnings("ignore")

print(json.dumps(sorted(torch.export.load(sys.argv[1]).state_dict)))
