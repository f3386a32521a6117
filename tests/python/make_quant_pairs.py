"""Quantized models and their float twins, traced with stock PyTorch, for tst_quant_error.

Writes into OUTDIR, for each PAIR in (mobilenet_v2, fx_cnn):
  PAIR.quantized.pt  the quantized model, traced
  PAIR.float.pt      its float twin, traced: the same module paths
  PAIR.x.pt          the input both were traced and measured on
  PAIR.ref.json      {"modules": {path: {sqnr_db, cosine, max_abs, numel}}}: each module's output
                     in the quantized model against the float twin's, from forward hooks on the
                     eager modules (the float output is the reference; quantized outputs are
                     dequantized; sqnr_db is null where the two are equal), and "types":
                     {path: {quantized, float}} each side's module class
  fx_cnn.wide_pool.pt  the fx_cnn twin with a 2x2 pool (and a wider fc): pool's shapes differ

mobilenet_v2: torchvision's quantizable MobileNetV2 (random weights, batch norm statistics taken
  from random batches, so activations keep their scale instead of fading to zero through the
  layers and quantizing to nothing), fused, prepared with the
  x86 qconfig, calibrated on seeded random batches and converted (eager post-training
  quantization). The twin is the fused float model: prepare works on a copy, and calibration only
  observes, so the twin computes what the calibrated model computed before convert.
fx_cnn: a small CNN through quantize_fx's prepare_fx/convert_fx. The twin is fuse_fx of the float
  model: batch norm folded into conv1 as convert_fx folds it, so each module computes the same
  thing on both sides.
PT2E is not built: torch.ao.quantization.quantize_pt2e moved to torchao, which the venv lacks.
Run with the venv interpreter: .venv/bin/python make_quant_pairs.py OUTDIR
"""
import copy
import json
import math
import os
import sys
import warnings

import torch
import torchvision


class SmallCnn(torch.nn.Module):
    def __init__(self, pool=1):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = torch.nn.AdaptiveAvgPool2d(pool)
        self.fc = torch.nn.Linear(16 * pool * pool, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(self.pool(x), 1))


def save_atomic(obj, path, saver=torch.save):
    tmp = path + ".tmp"
    saver(obj, tmp)
    os.replace(tmp, path)


def module_outputs(model, x):
    """Each named module's (root excluded) last tensor output on x, through forward hooks."""
    outputs, handles = {}, []
    for name, module in model.named_modules():
        if not name:
            continue

        def hook(_module, _args, out, name=name):
            if isinstance(out, torch.Tensor):
                outputs[name] = out.detach()
        handles.append(module.register_forward_hook(hook))
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return outputs


def as_float64(t):
    return (t.dequantize() if t.is_quantized else t).double()


def reference_errors(quantized, twin, x):
    """Per module path hooked on both sides: the quantized output against the float one."""
    q_out, f_out = module_outputs(quantized, x), module_outputs(twin, x)
    modules = {}
    for name in sorted(set(q_out) & set(f_out)):
        q, f = as_float64(q_out[name]), as_float64(f_out[name])
        if q.shape != f.shape:
            continue
        noise = float(((f - q) ** 2).sum())
        signal = float((f ** 2).sum())
        cosine = torch.nn.functional.cosine_similarity(q.flatten(), f.flatten(), dim=0, eps=0.0)
        modules[name] = {
            "sqnr_db": 10 * math.log10(signal / noise) if noise > 0 else None,
            "cosine": float(cosine) if not math.isnan(float(cosine)) else None,
            "max_abs": float((f - q).abs().max()) if q.numel() else 0.0,
            "numel": q.numel(),
        }
    q_types, f_types = dict(quantized.named_modules()), dict(twin.named_modules())
    types = {name: {"quantized": type(q_types[name]).__name__, "float": type(f_types[name]).__name__} for name in modules}
    return {"modules": modules, "types": types, "quantized_only": sorted(set(q_out) - set(f_out)),
            "float_only": sorted(set(f_out) - set(q_out))}


def write_pair(outdir, name, quantized, twin, x):
    with torch.no_grad():
        traced_q = torch.jit.trace(quantized, x, check_trace=False)
        traced_f = torch.jit.trace(twin, x, check_trace=False)
    save_atomic(x, os.path.join(outdir, name + ".x.pt"))
    ref = reference_errors(quantized, twin, x)
    with open(os.path.join(outdir, name + ".ref.json.tmp"), "w") as f:
        json.dump(ref, f, indent=1)
    os.replace(os.path.join(outdir, name + ".ref.json.tmp"), os.path.join(outdir, name + ".ref.json"))
    save_atomic(traced_f, os.path.join(outdir, name + ".float.pt"), lambda m, p: m.save(p))
    # Last: its presence says the pair is complete.
    save_atomic(traced_q, os.path.join(outdir, name + ".quantized.pt"), lambda m, p: m.save(p))


def settle_batch_norms(model, batch):
    """Batch norm running statistics from `batch`, as training would leave them; then eval."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average: one batch sets the statistics
    model.train()
    with torch.no_grad():
        model(batch)
    model.eval()


def make_eager_mobilenet(outdir):
    from torch.ao.quantization import convert, get_default_qconfig, prepare
    torch.manual_seed(0)
    twin = torchvision.models.quantization.mobilenet_v2(weights=None, quantize=False)
    settle_batch_norms(twin, torch.randn(4, 3, 224, 224))
    twin.fuse_model()
    twin.qconfig = get_default_qconfig("x86")
    prepared = prepare(twin, inplace=False)
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(2, 3, 224, 224))
    quantized = convert(prepared, inplace=False).eval()
    write_pair(outdir, "mobilenet_v2", quantized, twin, torch.randn(1, 3, 224, 224))


def make_fx_cnn(outdir):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, fuse_fx, prepare_fx
    torch.manual_seed(0)
    model = SmallCnn().eval()
    x = torch.randn(2, 3, 32, 32)
    prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("x86"), example_inputs=(x,))
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn(4, 3, 32, 32))
    quantized = convert_fx(prepared).eval()
    twin = fuse_fx(model).eval()
    wide = torch.jit.trace(SmallCnn(pool=2).eval(), x, check_trace=False)
    save_atomic(wide, os.path.join(outdir, "fx_cnn.wide_pool.pt"), lambda m, p: m.save(p))
    write_pair(outdir, "fx_cnn", quantized, twin, x)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    warnings.filterwarnings("ignore")
    make_eager_mobilenet(outdir)
    make_fx_cnn(outdir)


if __name__ == "__main__":
    main()
