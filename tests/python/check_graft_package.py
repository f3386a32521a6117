"""The graft Python package as a notebook user calls it: graft.export of an nn.Module, of an
fx.GraphModule and of an ExportedProgram into OUTDIR, and graft.show with GRAFT_GUI pointing at
a stand-in that records what it was asked to open. Prints JSON {files: [...], shown: path}."""
import json
import os
import stat
import sys
import time

import torch

import graft


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    model, x = Tiny(), torch.randn(2, 4)
    files = [graft.export(model, os.path.join(outdir, "module.pt2"), (x,)),
             graft.export(torch.fx.symbolic_trace(model), os.path.join(outdir, "graph_module.pt2"), x),
             graft.export(torch.export.export(model, (x,)), os.path.join(outdir, "program.pt2"))]
    record = os.path.join(outdir, "shown.txt")
    stand_in = os.path.join(outdir, "fake-graft")
    with open(stand_in, "w") as f:
        f.write(f"#!/bin/sh\necho \"$1\" > {record}\n")
    os.chmod(stand_in, os.stat(stand_in).st_mode | stat.S_IEXEC)
    os.environ["GRAFT_GUI"] = stand_in
    shown = graft.show(model, (x,), path=os.path.join(outdir, "shown.pt2"))
    for _ in range(100):
        if os.path.exists(record):
            break
        time.sleep(0.05)
    with open(record) as f:
        opened = f.read().strip()
    try:
        graft.show(model)
        missing_args = ""
    except ValueError as e:
        missing_args = str(e)
    print(json.dumps({"files": files, "shown": shown, "opened": opened, "missing_args": missing_args}))


if __name__ == "__main__":
    main()
