"""TorchScript archives whose __setstate__ reaches outside in forms a text scan misses, for
tst_untrusted. Each variant is a scripted model's code/__torch__.py written by hand; each is proved
real here: stock torch.jit.load compiles it and runs it (it writes MARKER, fills VICTIM, or is still
running after a few seconds). Also two models with a `with` block in forward:
  with_no_grad.pt         forward holds `with torch.no_grad():` (an everyday model)
  with_enter_saves.pt     forward's `with` calls an __enter__ that saves a tensor
Writes OUTDIR/variants.txt, one variant file a line. Run: .venv/bin/python make_setstate_variants.py OUTDIR
"""
import os
import random
import subprocess
import sys
import zipfile

import torch

OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "."
MARKER = os.path.join(OUT, "MARKER")
VICTIM = os.path.join(OUT, "VICTIM")

CLASS = """class B(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  scale : float
  def forward(self: __torch__.B,
    x: Tensor) -> Tensor:
    return torch.mul(x, self.scale)
  def __getstate__(self: __torch__.B) -> Tuple[float, bool]:
    return (self.scale, self.training)
  def __setstate__(self: __torch__.B,
    state: Tuple[float, bool]) -> NoneType:
{body}
    self.scale = (state)[0]
    self.training = (state)[1]
    return None
{methods}
{classes}
"""

SAVE = 'torch.save(torch.ones([1]), "{m}")'.format(m=MARKER)
CTX = """class Ctx:
  x : int
  def __init__(self: __torch__.Ctx) -> NoneType:
    self.x = 0
    return None
  def __enter__(self: __torch__.Ctx) -> NoneType:
    _0 = {save}
    return None
  def __exit__(self: __torch__.Ctx,
    a: Any,
    b: Any,
    c: Any) -> NoneType:
    return None
""".format(save=SAVE)
HELPER = "  def helper(self: __torch__.B,\n    v: float) -> float:\n{}\n    return v"
LOOP = "    i = 0\n    while torch.ge(i, 0):\n      i = torch.add(i, 1)"
WITH = "    _0 = __torch__.Ctx.__new__(__torch__.Ctx)\n    _1 = (_0).__init__()\n    with _0:\n      _2 = 1"

# name: (body, methods, classes, how stock shows it runs: "marker", "victim", "runs" or "hangs")
VARIANTS = {
    "call_parenthesized": ("    _0 = (self.helper)(1.0)", HELPER.format("    _1 = " + SAVE), "", "marker"),
    "comment_before_paren": ('    _0 = (torch.save  # c\n      (torch.ones([1]), "{}"))'.format(MARKER), "", "", "marker"),
    "comment_after_dot": ('    _0 = (torch.  # c\n      save(torch.ones([1]), "{}"))'.format(MARKER), "", "", "marker"),
    "one_line_def": ("    _0 = self.helper(1.0)",
                     "  def helper(self: __torch__.B, v: float) -> NoneType: " + SAVE, "", "marker"),
    "dedented_continuation": ('    _0 = torch.save(torch.ones([1]),\n"{}")'.format(MARKER), "", "", "marker"),
    "with_enter": (WITH, "", CTX, "marker"),
    "from_file_dedented": ('    _0 = torch.from_file("{}", True, 8).fill_(\n4321.)\n'
                           '    self.scale = float(torch.select(_0, 0, 0))'.format(VICTIM), "", "", "victim"),
    "free_function": ("    _0 = __torch__.helper2(1.0)", "",
                      "def helper2(v: float) -> float:\n  _0 = {}\n  return v".format(SAVE), "marker"),
    "loop_through_helper": ("    _0 = (self.helper)(1.0)", HELPER.format(LOOP), "", "hangs"),
    # Used, so the compiler keeps them; here small enough to prove quickly.
    "comprehension_dedented": ("    self.scale = float(len([i for i in range(\n100)]))", "", "", "runs"),
    "matrix_power": ("    self.scale = float(torch.sum(torch.matrix_power(torch.ones([2, 2]), 3)))", "", "", "runs"),
    "repeated_list": ("    self.scale = float(len(torch.mul([0], 3)))", "", "", "runs"),
    "with_calls_helper": (WITH.replace("_2 = 1", "_2 = (self.helper)(1.0)"), HELPER.format("    _1 = " + SAVE),
                          CTX.replace(SAVE, "torch.ones([1])"), "marker"),
}

BASE = """
from typing import Any, Tuple
import torch


class B(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    @torch.jit.export
    def __getstate__(self):
        return (self.scale, self.training)

    @torch.jit.export
    def __setstate__(self, state: Tuple[float, bool]):
        self.scale = state[0]
        self.training = state[1]

    def forward(self, x):
        return x * self.scale


class Ctx:
    def __init__(self):
        self.x = 0

    def __enter__(self):
        torch.save(torch.ones(1), {marker!r})

    def __exit__(self, a: Any, b: Any, c: Any):
        pass


class WithNoGrad(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        with torch.no_grad():
            z = torch.tanh(y) * 2.0 + x
        return z - y


class WithEnterSaves(torch.nn.Module):
    def forward(self, x):
        with Ctx():
            y = x + 1
        return y
"""


MODULE = "code/__torch__/variant_models.py"  # where the scripted classes' code lives


def write_variant(base, dst, code):
    code = code.replace("__torch__.", "__torch__.variant_models.")
    with zipfile.ZipFile(base) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as b:
        for info in a.infolist():
            if info.filename.endswith(MODULE + ".debug_pkl"):
                continue  # the source ranges of the text replaced
            data = code.encode() if info.filename.endswith(MODULE) else a.read(info.filename)
            b.writestr(info.filename, data)


def reset():
    if os.path.exists(MARKER):
        os.remove(MARKER)
    with open(VICTIM, "wb") as f:
        f.write(bytes(range(64)))


def proved(path, how):
    """Whether stock torch.jit.load compiles `path` and runs its __setstate__ as `how` says."""
    reset()
    if how == "hangs":  # in a process of its own, ended when it has not returned in a few seconds
        try:
            subprocess.run([sys.executable, "-c", "import sys, torch; torch.jit.load(sys.argv[1])", path],
                           timeout=6, capture_output=True)
        except subprocess.TimeoutExpired:
            return True
        return False
    try:
        torch.jit.load(path)
    except Exception as e:  # noqa: BLE001 - any failure means the variant is not real
        print(path, "does not load in stock torch:", str(e)[-400:], file=sys.stderr)
        return False
    if how == "marker":
        ok = os.path.exists(MARKER)
    elif how == "victim":
        ok = open(VICTIM, "rb").read() != bytes(range(64))
    else:
        ok = how == "runs"
    reset()
    return ok


def random_rewrite(rng, text):
    """`text` with comments, line breaks and parentheses put where the compiler takes them."""
    out = []
    depth = 0
    for ch in text:
        out.append(ch)
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if depth > 0 and ch in "(,." and rng.random() < 0.5:
            out.append(rng.choice(["  # x\n", "\n", " \\\n", "  #)(\n"]) + " " * rng.randint(0, 9))
    return "".join(out)


def main():
    os.makedirs(OUT, exist_ok=True)
    source = os.path.join(OUT, "variant_models.py")
    with open(source, "w") as f:
        f.write(BASE.format(marker=MARKER))
    sys.path.insert(0, OUT)
    import variant_models as models
    base = os.path.join(OUT, "variant_base.pt")
    torch.jit.script(models.B().eval()).save(base)
    torch.jit.script(models.WithNoGrad().eval()).save(os.path.join(OUT, "with_no_grad.pt"))
    torch.jit.script(models.WithEnterSaves().eval()).save(os.path.join(OUT, "with_enter_saves.pt"))
    reset()
    written = []
    for name, (body, methods, classes, how) in VARIANTS.items():
        path = os.path.join(OUT, "variant_%s.pt" % name)
        write_variant(base, path, CLASS.format(body=body, methods=methods, classes=classes))
        if not proved(path, how):
            sys.exit("variant %s is not real: stock PyTorch does not run it as expected (%s)" % (name, how))
        written.append(path)
    # Random rewrites of a refused call: each one stock compiles and runs is kept.
    rng = random.Random(7)
    body = '    _0 = torch.save(torch.ones([1]), "{}")'.format(MARKER)
    kept = 0
    for i in range(24):
        path = os.path.join(OUT, "variant_random_%d.pt" % i)
        write_variant(base, path, CLASS.format(body=random_rewrite(rng, body), methods="", classes=""))
        if proved(path, "marker"):
            written.append(path)
            kept += 1
        else:
            os.remove(path)
    if kept < 8:
        sys.exit("only %d random rewrites compile in stock PyTorch" % kept)
    with open(os.path.join(OUT, "variants.txt"), "w") as f:
        f.write("\n".join(written) + "\n")


if __name__ == "__main__":
    main()
