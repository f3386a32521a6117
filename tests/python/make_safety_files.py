"""Files that are hard on Graft's readers and writers, made from a small real program:
  plain.pt2       torch.export.save of a Linear + ReLU program
  deflated.pt2    the same records, deflate-compressed (torch.export.load reads it unchanged)
  future.pt2      its model.json claims export schema major 99
  junk.pt2        with an extra record nothing reads
  bomb.pt2        with a deflated record of 200 MiB of zeros (about 200 KiB in the file)
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


if __name__ == "__main__":
    main(sys.argv[1])
