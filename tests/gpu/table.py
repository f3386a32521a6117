"""The table of tests/gpu/run.sh: PyTorch's figures beside Graft's for the same files and inputs,
then one line per step. Reads the step outputs in J (NAME.json, steps.tsv, torch_ref.json) and
what make_models.py wrote in M.

  python3 table.py J M
Exit 0 when every step gave an answer (compare: 0 equal, 1 different, 3 an intermediate differs;
others: 0), 1 otherwise."""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None


def num(v, fmt="{:.3f}"):
    return fmt.format(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def mib(v):
    return num(v / 1048576, "{:.1f}") if isinstance(v, (int, float)) else "-"


def ratio(a, b):
    return num(a / b, "{:.2f}x") if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0 else "-"


def summary(name, d):
    if not isinstance(d, dict):
        return ""
    parts = []
    if name.startswith("info"):
        parts += [f"{d.get('format', '?')}", f"ops {d.get('ops', '?')}"]
    elif name.startswith(("cc-", "gg-", "bf16-", "foldcc-")):
        verdict = d.get("agreement") or d.get("verdict")
        parts.append(f"{verdict}: {d.get('verdict_reason', '')}" if verdict else f"equal {d.get('equal')}")
        outs = d.get("outputs") or []
        if outs and isinstance(outs[0], dict):
            parts.append(f"max_abs {num(outs[0].get('max_abs'), '{:.3g}')}")
        if d.get("culprit"):
            c = d["culprit"]
            parts.append(f"culprit {c.get('op')} ({c.get('module_path')})")
        fd = d.get("first_divergence")
        if fd:
            parts.append(f"first divergence {fd.get('op')} ({fd.get('module_path')})")
        for key in ("device_note", "relaxed"):
            if d.get(key):
                parts.append(f"{key}: {json.dumps(d[key])[:120]}")
    elif name.startswith("fold-"):
        parts.append(f"ops {d.get('ops_before')} -> {d.get('ops_after')}")
    elif name.startswith(("pf-", "mem-")):
        parts.append(f"overhead {num(d.get('overhead'), '{:.2f}x')}")
        if d.get("kernels_recorded"):
            parts.append(f"kernels {num(d.get('kernels_per_run'), '{:.0f}')}/run, {d.get('unattributed_kernels')} outside nodes")
        if d.get("kernel_note"):
            parts.append(d["kernel_note"])
        if "peak_bytes" in d:
            parts.append(f"peak {mib(d['peak_bytes'])} MiB")
    for diag in (d.get("diagnostics") or [])[:2]:
        if isinstance(diag, dict) and diag.get("message"):
            parts.append(f"[{diag.get('severity', '')}] {diag['message'][:140]}")
    return "; ".join(str(p) for p in parts)


def main():
    J, M = sys.argv[1], sys.argv[2]
    steps = []
    if os.path.exists(f"{J}/steps.tsv"):
        for line in open(f"{J}/steps.tsv"):
            name, rc, took = line.rstrip("\n").split("\t")
            steps.append((name, rc, took))
    out = {name: load(f"{J}/{name}.json") for name, _, _ in steps}
    ref = {}
    if os.path.exists(f"{J}/torch_ref.json"):
        for line in open(f"{J}/torch_ref.json"):
            try:
                r = json.loads(line)
                ref[r.pop("spec")] = r
            except Exception:
                pass
    made = load(f"{M}/made-llm.json") or {}

    rows = [("resnet50.pt", "1x3x224x224", "pf-r50pt-b1", None, f"{M}/resnet50.pt@1x3x224x224"),
            ("resnet50.pt", "32x3x224x224", "pf-r50pt-b32", "mem-r50pt-b32", f"{M}/resnet50.pt@32x3x224x224"),
            ("resnet50.pt2", "32x3x224x224", "pf-r50pt2-b32", None, f"{M}/resnet50.pt2@32x3x224x224"),
            ("vit_b_16.pt2", "1x3x224x224", "pf-vit", "mem-vit", f"{M}/vit_b_16.pt2@1x3x224x224"),
            ("llama.pt2", "ids 2x16", "pf-llama", "mem-llama", f"{M}/llama.pt2@{M}/llama.ids.pt")]
    head = ["model", "input", "PT eager ms", "Graft fwd ms", "Graft/PT", "profiled ms", "Graft prof.",
            "torch.profiler", "kernel ms", "kernels", "PT peak MiB", "Graft peak MiB", "peak diff B"]
    table = [head]
    for model, inp, pf, mem, key in rows:
        p, m, r = out.get(pf) or {}, (out.get(mem) or {}) if mem else {}, ref.get(key) or {}
        table.append([model, inp, num(r.get("eager_ms")), num(p.get("forward_median_ms")),
                      ratio(p.get("forward_median_ms"), r.get("eager_ms")), num(p.get("median_ms")),
                      num(p.get("overhead"), "{:.2f}x"), num(r.get("profiler_overhead"), "{:.2f}x"),
                      num(p.get("kernel_ms_median")),
                      num(p.get("kernels_per_run"), "{:.0f}") if p.get("kernels_recorded") else "-",
                      mib(r.get("peak_bytes")) if mem else "-", mib(m.get("peak_bytes")) if mem else "-",
                      str(m["peak_bytes"] - r["peak_bytes"]) if mem and isinstance(m.get("peak_bytes"), int)
                      and isinstance(r.get("peak_bytes"), int) else "-"])
    widths = [max(len(str(row[i])) for row in table) for i in range(len(head))]
    print()
    print("PyTorch (eager CUDA forward, torch.profiler with CPU+CUDA activities, peak CUDA memory of one")
    print("forward) beside Graft (plain forward and profiled run medians from `profile --device cuda`,")
    print("kernels from the profiler's GPU activity; peak from `profile --memory`):")
    for row in table:
        print("  ".join(str(c).rjust(w) if i > 1 else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    for key, r in ref.items():
        if isinstance(r, dict) and "error" in r:
            print(f"PyTorch failed on {os.path.basename(key)}: {r['error']}")
        elif isinstance(r, dict) and "cpu_vs_cuda_max_abs" in r:
            print(f"PyTorch CPU vs CUDA max abs, {os.path.basename(key)}: {r['cpu_vs_cuda_max_abs']:.3g}")
    if made:
        print(f"llama: {made.get('llama', made.get('error'))}; {made.get('llama_params', '?')} parameters; {made.get('seq', '')}")
    print()
    status = 0
    for name, rc, took in steps:
        answered = rc in ("0", "1", "3") if name.startswith(("cc-", "gg-", "bf16-", "foldcc-")) else rc == "0"
        if not answered:
            status = 1
        print(f"{'ok  ' if answered else 'FAIL'} {name:<20} rc={rc:<7} {took:>6}s  {summary(name, out.get(name))}")
    return status


if __name__ == "__main__":
    sys.exit(main())
