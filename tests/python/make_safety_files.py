"""Files that are hard on Graft's readers and writers, made from a small real program:
  plain.pt2       torch.export.save of a Linear + ReLU program
  deflated.pt2    the same records, deflate-compressed (torch.export.load reads it unchanged)
  future.pt2      its model.json claims export schema major 99
  junk.pt2        with an extra record nothing reads
  bomb.pt2        with a deflated record of 200 MiB of zeros (about 200 KiB in the file)
  lin.pt          the same Linear + ReLU, scripted (TorchScript)
  x.pt, wrong_shape.pt   a [2, 8] input and a [3, 5] one, torch.save'd
  type_wrong.rule    an IR rule whose replacement returns an int where forward returns a Tensor
  unknown_op.rule    an IR rule whose replacement calls an operator libtorch does not have
  nested_unknown_op.rule  the same, inside a prim::If block of the replacement
  no_magic.npy       64 KiB of zeros named .npy (no NUMPY magic)
Run: .venv/bin/python make_safety_files.py OUTDIR
"""
import json
import os
import sys
import zipfile

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


def rewrite(src, dst, change=None, extra=None, compress=zipfile.ZIP_STORED):
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", compress) as b:
        for info in a.infolist():
            data = a.read(info.filename)
            if change:
                data = change(info.filename, data)
            b.writestr(info.filename, data, compress_type=compress)
        for name, data in (extra or {}).items():
            b.writestr(name, data)


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    ep = torch.export.export(M().eval(), (torch.randn(2, 8),))
    plain = os.path.join(out, "plain.pt2")
    torch.export.save(ep, plain)
    rewrite(plain, os.path.join(out, "deflated.pt2"), compress=zipfile.ZIP_DEFLATED)

    def future(name, data):
        if name.endswith("models/model.json"):
            model = json.loads(data)
            model["schema_version"]["major"] = 99
            return json.dumps(model).encode()
        return data

    rewrite(plain, os.path.join(out, "future.pt2"), change=future)
    top = zipfile.ZipFile(plain).namelist()[0].split("/")[0]
    rewrite(plain, os.path.join(out, "junk.pt2"), extra={top + "/junk/unused.bin": b"\0" * 4096})
    rewrite(plain, os.path.join(out, "bomb.pt2"), extra={top + "/extra/bomb.bin": b"\0" * (200 << 20)},
            compress=zipfile.ZIP_DEFLATED)
    x = torch.randn(2, 8)
    torch.save(x, os.path.join(out, "x.pt"))
    torch.save(torch.randn(3, 5), os.path.join(out, "wrong_shape.pt"))
    reference = torch.export.load(os.path.join(out, "deflated.pt2")).module()(x)
    assert torch.equal(reference, ep.module()(x))
    scripted = torch.jit.script(M().eval())
    scripted.save(os.path.join(out, "lin.pt"))
    for name, text in RULES.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    with open(os.path.join(out, "no_magic.npy"), "wb") as f:
        f.write(b"\0" * 65536)


# The replacement type-checks as IR, and even runs, but forward then returns an int where its
# signature says Tensor: torch.jit.load refuses such a file ("annotated as Tensor but is actually
# of type int").
RULES = {
    "type_wrong.rule": """id: type-wrong
title: relu returns its rank
[pattern]
graph(%x):
  %y = aten::relu(%x)
  return (%y)
[replacement]
graph(%x):
  %y : int = aten::dim(%x)
  return (%y)
""",
    "unknown_op.rule": """id: unknown-op
title: relu by an operator nobody registered
[pattern]
graph(%x):
  %y = aten::relu(%x)
  return (%y)
[replacement]
graph(%x):
  %y = graft_missing::frobnicate(%x)
  return (%y)
""",
    "nested_unknown_op.rule": """id: nested-unknown-op
title: relu by an unknown aten operator inside an if
[pattern]
graph(%x):
  %y = aten::relu(%x)
  return (%y)
[replacement]
graph(%x):
  %c : bool = prim::Constant[value=1]()
  %y = prim::If(%c)
    block0():
      %a = aten::relu_but_not_really(%x)
      -> (%a)
    block1():
      -> (%x)
  return (%y)
""",
}


if __name__ == "__main__":
    main(sys.argv[1])
