"""Files whose tensor records are shorter than their tensors (torch.load refuses each with
"record size ... does not match expected size"), and the models and rule used to make them:
  conv.pt            a traced Conv(3,8) + ReLU + Conv(8,4) network with a tensor constant
  short_weight.pt    conv.pt with its largest weight record cut to a third
  empty_weight.pt    conv.pt with that record emptied
  short_constant.pt  conv.pt with the tensor constant's record (constants.pkl) cut
  short_tensor.pt    torch.save of a 64x64 tensor whose record is cut to 100 bytes
  empty_tensor.pt    the same tensor with an empty record
  short_view.pt      torch.save of a view into a 4096-element storage, the record cut to 1000 bytes
  program.pt2        torch.export.save of the same network (dynamic batch)
  short_weight.pt2   program.pt2 with a weight record cut
  short_sample.pt2   program.pt2 whose sample input (a torch.save inside it) has its record cut
  good_tensor.pt     an intact 2x3x16x16 input for program.pt2
Run: .venv/bin/python make_damaged_records.py OUTDIR
"""
import io
import os
import sys
import zipfile

import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3)
        self.conv2 = torch.nn.Conv2d(8, 4, 3)
        self.scale = torch.linspace(0.5, 1.5, 4).reshape(1, 4, 1, 1)  # a plain tensor: a traced constant

    def forward(self, x):
        return self.conv2(torch.relu(self.conv1(x))) * self.scale


def rewrite(src, dst, change):
    """Copies a zip archive record by record; `change(name, bytes)` returns the new bytes."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as b:
        for info in a.infolist():
            b.writestr(info.filename, change(info.filename, a.read(info.filename)))


def cut(path, dst, pick, keep):
    """Cuts the record `pick(names, sizes)` chooses to `keep(size)` bytes."""
    with zipfile.ZipFile(path) as z:
        sizes = {i.filename: i.file_size for i in z.infolist()}
    target = pick(sizes)
    rewrite(path, dst, lambda name, data: data[: keep(len(data))] if name == target else data)
    return target


def largest(prefix):
    def pick(sizes):
        names = [n for n in sizes if ("/" + prefix + "/") in n and not n.endswith((".pkl", ".json"))]
        return max(names, key=lambda n: sizes[n])
    return pick


def saved_bytes(value):
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


def cut_saved(data, keep):
    """A torch.save archive (bytes) with its tensor record data/0 cut to `keep(size)` bytes."""
    src, dst = io.BytesIO(data), io.BytesIO()
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as b:
        for info in a.infolist():
            record = a.read(info.filename)
            if info.filename.endswith("/data/0"):
                record = record[: keep(len(record))]
            b.writestr(info.filename, record)
    return dst.getvalue()


def refused(load):
    try:
        load()
    except Exception:
        return True
    return False


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    net = Net().eval()
    x = torch.randn(2, 3, 16, 16)
    traced = torch.jit.trace(net, (x,))
    conv = os.path.join(out, "conv.pt")
    traced.save(conv)
    cut(conv, os.path.join(out, "short_weight.pt"), largest("data"), lambda n: n // 3)
    cut(conv, os.path.join(out, "empty_weight.pt"), largest("data"), lambda n: 0)
    cut(conv, os.path.join(out, "short_constant.pt"), largest("constants"), lambda n: n // 2)

    tensor = torch.randn(64, 64)
    for name, keep in (("short_tensor.pt", lambda n: 100), ("empty_tensor.pt", lambda n: 0)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(cut_saved(saved_bytes(tensor), keep))
    view = torch.randn(4096)[1000:3000].reshape(40, 50)
    with open(os.path.join(out, "short_view.pt"), "wb") as f:
        f.write(cut_saved(saved_bytes(view), lambda n: 1000))
    torch.save(x, os.path.join(out, "good_tensor.pt"))

    batch = torch.export.Dim("batch", min=2, max=16)
    ep = torch.export.export(net, (x,), dynamic_shapes=({0: batch},))
    program = os.path.join(out, "program.pt2")
    torch.export.save(ep, program)
    cut(program, os.path.join(out, "short_weight.pt2"), largest("weights"), lambda n: n // 3)

    def sample(name, data):
        return cut_saved(data, lambda n: n // 4) if "/sample_inputs/" in name else data
    rewrite(program, os.path.join(out, "short_sample.pt2"), sample)

    # Stock PyTorch refuses what Graft must refuse.
    for name in ("short_tensor.pt", "empty_tensor.pt", "short_view.pt"):
        assert refused(lambda: torch.load(os.path.join(out, name))), name


if __name__ == "__main__":
    main(sys.argv[1])
