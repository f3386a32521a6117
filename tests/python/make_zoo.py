"""The model zoo of Graft's platform tests: models people use today, captured by the torch 2.x of
the venv, with what stock PyTorch says about each.

Writes into OUTDIR/zoo (skipping models already there, so the build folder caches them):
  <name>.pt            the TorchScript archive (traced or scripted, as listed below)
  <name>.inputs.pt     torch.save'd tuple of forward's positional inputs (fixed seed)
  <name>.outputs.pt    torch.save'd output of torch.jit.load(<name>.pt) on those inputs
  <name>.ref.json      ops and jit_nodes of the frozen, inlined graph (nested blocks counted),
                       the op histogram, how it was captured, and whether fold-conv-bn applies
  zoo.json             the list of names, in order
Run: .venv/bin/python make_zoo.py OUTDIR [NAME ...]
"""
import json
import os
import sys
import warnings

import torch
import torchvision

# torch.jit.* warns that TorchScript is deprecated on every call; the zoo uses it on purpose.
warnings.filterwarnings("ignore", category=FutureWarning)


def count_ops(block):
    ops, total, hist = 0, 0, {}
    for node in block.nodes():
        total += 1
        if not node.kind().startswith("prim::"):
            ops += 1
            hist[node.kind()] = hist.get(node.kind(), 0) + 1
        for sub in node.blocks():
            o, t, h = count_ops(sub)
            ops, total = ops + o, total + t
            for k, v in h.items():
                hist[k] = hist.get(k, 0) + v
    return ops, total, hist


class LSTMTagger(torch.nn.Module):
    """A 2-layer LSTM over an embedded sequence, with a linear head."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(100, 16)
        self.lstm = torch.nn.LSTM(16, 32, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(32, 5)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


def image(size):
    return (torch.randn(1, 3, size, size),)


def bert():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=128, max_position_embeddings=64, return_dict=False)
    if hasattr(cfg, "torchscript"):
        cfg.torchscript = True
    return BertModel(cfg)


def gpt2():
    from transformers import GPT2Config, GPT2Model
    cfg = GPT2Config(vocab_size=1000, n_embd=64, n_layer=2, n_head=2, n_positions=64, use_cache=False,
                     bos_token_id=0, eos_token_id=0, return_dict=False)
    if hasattr(cfg, "torchscript"):
        cfg.torchscript = True
    return GPT2Model(cfg)


def tokens():
    return (torch.randint(0, 1000, (1, 16)),)


def detection_images():
    return ([torch.rand(3, 320, 320), torch.rand(3, 256, 300)],)


tv = torchvision.models
# name: (factory, example inputs, how: trace | trace-nonstrict | script, fold-conv-bn applies)
ZOO = {
    "vit_b_16": (lambda: tv.vit_b_16(), lambda: image(224), "trace", False),
    "swin_v2_t": (lambda: tv.swin_v2_t(), lambda: image(256), "trace", False),
    "convnext_tiny": (lambda: tv.convnext_tiny(), lambda: image(224), "trace", False),
    "efficientnet_v2_s": (lambda: tv.efficientnet_v2_s(), lambda: image(224), "trace", True),
    "fasterrcnn_mobilenet_v3_large_320_fpn": (
        lambda: tv.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None),
        detection_images, "script", False),
    "deeplabv3_mobilenet_v3_large": (
        lambda: tv.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None),
        lambda: image(224), "trace-nonstrict", True),
    "bert": (bert, tokens, "trace", False),
    "gpt2": (gpt2, tokens, "trace", False),
    "lstm": (LSTMTagger, lambda: (torch.randint(0, 100, (2, 12)),), "trace", False),
}


def save_atomic(obj, path):
    torch.save(obj, path + ".tmp")
    os.replace(path + ".tmp", path)


def make(outdir, name):
    base = os.path.join(outdir, name)
    if os.path.exists(base + ".ref.json"):
        return
    factory, make_inputs, how, folds = ZOO[name]
    torch.manual_seed(0)
    model = factory().eval()
    inputs = make_inputs()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how == "script":
            captured = torch.jit.script(model)
        else:
            captured = torch.jit.trace(model, inputs, check_trace=False, strict=(how == "trace"))
    captured.save(base + ".pt.tmp")
    os.replace(base + ".pt.tmp", base + ".pt")
    loaded = torch.jit.load(base + ".pt").eval()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outputs = loaded(*inputs)
    save_atomic(tuple(inputs), base + ".inputs.pt")
    save_atomic(outputs, base + ".outputs.pt")
    frozen = torch._C._freeze_module(loaded._c)
    graph = frozen._get_method("forward").graph
    torch._C._jit_pass_inline(graph)
    ops, total, hist = count_ops(graph)
    ref = {"ops": ops, "jit_nodes": total, "op_histogram": hist, "captured": how,
           "fold_conv_bn": folds, "torch": torch.__version__, "torchvision": torchvision.__version__}
    with open(base + ".ref.json.tmp", "w") as f:
        json.dump(ref, f, indent=1)
    os.replace(base + ".ref.json.tmp", base + ".ref.json")
    print(f"zoo: {name}: {ops} ops, {total} nodes ({how})", flush=True)


def main():
    outdir = os.path.join(sys.argv[1], "zoo")
    os.makedirs(outdir, exist_ok=True)
    names = sys.argv[2:] or list(ZOO)
    for name in names:
        make(outdir, name)
    with open(os.path.join(outdir, "zoo.json"), "w") as f:
        json.dump(list(ZOO), f)


if __name__ == "__main__":
    main()
