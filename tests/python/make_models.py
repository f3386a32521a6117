"""Reference side of Graft's tests: real torchvision models traced with stock PyTorch.

Writes into OUTDIR (skipping files already there, so the build folder caches them):
  <name>.pt          torch.jit.trace(model.eval(), x).save(...)
  <name>.ref.json    what stock PyTorch says about it: op counts of the frozen, inlined graph,
                     the Conv2d module paths, input shape
  bad/*              files that are not TorchScript modules, one per class of mistake
Run with the venv interpreter: .venv/bin/python make_models.py OUTDIR [MODEL ...]
"""
import json
import os
import sys
import zipfile

import torch
import torchvision

class EncoderStack(torch.nn.Module):
    """A 2-layer nn.TransformerEncoder (d=64): many tiny ops, for the profiler's overhead."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class LSTMStack(torch.nn.Module):
    """A 2-layer LSTM (hidden 64) over a 32-step sequence."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(64, 64, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


# name: (factory, input shape[, "script"]); traced unless marked.
MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224)),
    "resnet18_scripted": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224), "script"),
    "transformer_encoder": (EncoderStack, (1, 32, 64)),
    "lstm": (LSTMStack, (1, 32, 64)),
    "resnet50": (lambda: torchvision.models.resnet50(), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
    "densenet121": (lambda: torchvision.models.densenet121(), (1, 3, 224, 224)),
    "vit_b_16": (lambda: torchvision.models.vit_b_16(), (1, 3, 224, 224)),
    # cat-heavy and channel-shuffling nets: lists of computed tensors built for one op
    "googlenet": (lambda: torchvision.models.googlenet(init_weights=True), (1, 3, 224, 224)),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), (1, 3, 224, 224)),
    "shufflenet_v2_x0_5": (lambda: torchvision.models.shufflenet_v2_x0_5(), (1, 3, 224, 224)),
}


def count_ops(block):
    ops, total = 0, 0
    for node in block.nodes():
        total += 1
        if not node.kind().startswith("prim::"):
            ops += 1
        for sub in node.blocks():
            o, t = count_ops(sub)
            ops, total = ops + o, total + t
    return ops, total


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def make_model(outdir, name):
    pt = os.path.join(outdir, name + ".pt")
    ref = os.path.join(outdir, name + ".ref.json")
    if os.path.exists(pt) and os.path.exists(ref):
        return
    torch.manual_seed(0)
    factory, shape, *how = MODELS[name]
    model = factory().eval()
    example = torch.randn(*shape)
    with torch.no_grad():
        if how == ["script"]:
            traced = torch.jit.script(model)
        else:
            traced = torch.jit.trace(model, example, check_trace=False)
    traced.save(pt + ".tmp")
    os.replace(pt + ".tmp", pt)
    loaded = torch.jit.load(pt)
    frozen = torch._C._freeze_module(loaded._c)
    graph = frozen._get_method("forward").graph
    torch._C._jit_pass_inline(graph)
    ops, total = count_ops(graph)
    convs = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Conv2d)]
    hist = {}
    for node in graph.nodes():
        if not node.kind().startswith("prim::"):
            hist[node.kind()] = hist.get(node.kind(), 0) + 1
    write_atomic(ref, json.dumps({
        "ops": ops, "jit_nodes": total, "conv_modules": convs, "input_shape": list(shape),
        "op_histogram": hist,
    }, indent=1).encode())


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return torch.relu(self.fc(x))


def make_bad_files(outdir):
    bad = os.path.join(outdir, "bad")
    os.makedirs(bad, exist_ok=True)
    done = os.path.join(bad, ".done")
    if os.path.exists(done):
        return
    torch.manual_seed(0)
    model = Small().eval()
    torch.save(model.state_dict(), os.path.join(bad, "state_dict.pt"))
    torch.save(model, os.path.join(bad, "pickled_module.pt"))
    good = os.path.join(bad, "good_small.pt")
    torch.jit.trace(model, torch.randn(1, 4), check_trace=False).save(good)
    with open(good, "rb") as f:
        data = f.read()
    write_atomic(os.path.join(bad, "truncated.pt"), data[: len(data) // 2])
    write_atomic(os.path.join(bad, "random.pt"), os.urandom(4096))
    write_atomic(os.path.join(bad, "text.pt"), b"this is a text file, not a model\n")
    # An ONNX export of the same module (torch.onnx writes the protobuf itself).
    try:
        torch.onnx.export(model, torch.randn(1, 4), os.path.join(bad, "model.onnx"))
    except Exception:  # noqa: BLE001 - keep a minimal ModelProto header instead
        write_atomic(os.path.join(bad, "model.onnx"), b"\x08\x07\x12\x07pytorch\x1a\x042.14")
    # A TorchScript archive whose code calls an operator no libtorch has.
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(os.path.join(bad, "unknown_op.pt"), "w") as dst:
        for item in src.infolist():
            payload = src.read(item.filename)
            if item.filename.endswith(".py") and b"torch.relu" in payload:
                payload = payload.replace(b"torch.relu", b"torch.graft_no_such_op")
            dst.writestr(item, payload)
    write_atomic(done, b"")


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    make_bad_files(outdir)
    for name in sys.argv[2:] or ["resnet18", "mobilenet_v2", "densenet121"]:
        make_model(outdir, name)


if __name__ == "__main__":
    main()
