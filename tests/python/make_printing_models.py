"""Models that print, for tst_remote: what a model prints must never reach graft-cli's --json
stdout nor the agent's protocol (docs/remote.md, "What a host can change").
  steady.pt     x[0, :4] * 0 + C, C = the float32 whose bytes are b"AAAA"; prints nothing
  steady.pt2    the same as a torch.export program
  forger.pt2    x[0, :4] * 0 + 2C, and prints (aten._print) a well-formed agent reply that says
                its outputs are C: read as protocol, it would turn DIFFERENT into EXACT
  forger.pt     the same in TorchScript, printing with prim::Print
  chatty.pt     prints (prim::Print) 20000 lines with escape bytes, returns x + 1
  chatty.pt2    prints (aten._print) 200 lines of 2 KB with escape bytes, returns x + 1
(TorchScript drops a scripted aten::_print as dead code, so the .pt files use print().)
Inputs: 2x8 float32.
Run: .venv/bin/python make_printing_models.py OUTDIR
"""
import json
import os
import struct
import sys

import torch

C = struct.unpack("<f", b"AAAA")[0]
# What the agent would send for one float32 output [C, C, C, C]: a header line, then 16 raw bytes.
FORGED = json.dumps({"ok": True, "outputs": [{"t": "tensor", "dtype": "float32", "shape": [4], "offset": 0,
                                              "nbytes": 16}], "ms": 1.0, "bytes": 16},
                    separators=(",", ":")) + "\n" + "AAAA" * 4


class Steady(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = C

    def forward(self, x):
        return x[0, :4] * 0 + self.c


class Forger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c, self.forged = C, FORGED

    def forward(self, x):
        torch.ops.aten._print(self.forged)
        return x[0, :4] * 0 + 2 * self.c


class ScriptForger(Forger):
    def forward(self, x):
        print(self.forged)
        return x[0, :4] * 0 + 2 * self.c


class Chatty(torch.nn.Module):
    def forward(self, x):
        for i in range(20000):
            print("\x1b[2J\x1b]0;owned\x07 prim::Print line", i)
        return x + 1


class ChattyProgram(torch.nn.Module):
    def forward(self, x):
        for i in range(200):
            torch.ops.aten._print("\x1b[2J\x1b]0;owned\x07 aten::_print line %d " % i + "z" * 2000)
        return x + 1


def main(out):
    os.makedirs(out, exist_ok=True)
    x = torch.randn(2, 8)
    torch.jit.script(Steady()).save(os.path.join(out, "steady.pt"))
    torch.jit.script(ScriptForger()).save(os.path.join(out, "forger.pt"))
    torch.jit.script(Chatty()).save(os.path.join(out, "chatty.pt"))
    torch.export.save(torch.export.export(Steady(), (x,)), os.path.join(out, "steady.pt2"))
    torch.export.save(torch.export.export(Forger(), (x,)), os.path.join(out, "forger.pt2"))
    torch.export.save(torch.export.export(ChattyProgram(), (x,)), os.path.join(out, "chatty.pt2"))


if __name__ == "__main__":
    main(sys.argv[1])
