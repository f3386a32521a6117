#!/usr/bin/env bash
# Writes the seed corpus of every harness into tests/fuzz/corpus/<harness>/ from real files:
#   load     the small reference models of tests/python (make_run_models.py, and two torch.export
#            programs of make_programs.py), raw and as archive records (archive_seed.py), and the
#            crafted files of make_safety_files.py (compressed, future-schema, junk-record and
#            deflate-bomb programs) and make_hostile_files.py (__setstate__ and forward code that
#            writes files, maps them or never ends, code nested 100,000 deep, aten.save programs)
#   inputs   input specs as typed in the app, a .npy and a torch.save'd tensor, and the safety
#            files' inputs (a wrong-shape tensor, a .npy without its magic)
#   rules    (kept in git, added to here) the safety files' rules: an unknown operator at the top
#            level and inside a block, and a replacement of the wrong type
#   journal  journals written by Graft's Session on the built-in samples (fuzz_journal_seeds)
#   wire     replies of tests/python/fake_host.py's hostile hosts (huge offsets and sizes, bad
#            shapes, deep nesting, escapes) and well-formed ones
# The rule harness seeds from resources/rules directly. Needs the venv (.venv/bin/python) and a
# built build/fuzz (tests/fuzz/run.sh builds it first).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=${GRAFT_PYTHON:-$root/.venv/bin/python}
corpus=$here/corpus
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

rm -rf "$corpus/load" "$corpus/inputs" "$corpus/journal" "$corpus/wire"
mkdir -p "$corpus/load" "$corpus/inputs" "$corpus/journal" "$corpus/wire"

"$py" "$root/tests/python/make_run_models.py" "$scratch" >/dev/null
"$py" "$root/tests/python/make_programs.py" "$scratch" dynamic_batch cond >/dev/null
"$py" "$root/tests/python/make_damaged_records.py" "$scratch/damaged" >/dev/null
"$py" "$here/archive_seed.py" "$corpus/load" "$scratch"/run_cnn.pt "$scratch"/run_tuple.pt "$scratch"/run_x.pt \
  "$scratch"/pt2/dynamic_batch.pt2 "$scratch"/pt2/cond.pt2 "$scratch"/pt2/cond.pt \
  "$scratch"/damaged/short_weight.pt "$scratch"/damaged/short_constant.pt "$scratch"/damaged/short_sample.pt2
"$py" "$root/tests/python/make_safety_files.py" "$scratch/safety" >/dev/null 2>&1
"$py" "$root/tests/python/make_hostile_files.py" "$scratch/hostile" >/dev/null 2>&1
# Every crafted model file, raw and (where its records are small) as records.
"$py" "$here/archive_seed.py" "$corpus/load" "$scratch"/safety/*.pt "$scratch"/safety/*.pt2 "$scratch"/hostile/*.pt "$scratch"/hostile/*.pt2

i=0
for spec in '1x64:float32' '1x3x32x32' '2x2:int64 3' '(2x2, 3x3) none' '[1x2, 1x2]' '[1, 2, 3]' '[0.5, 1e-3]' \
            'int:3; float:0.5; bool:true' 'scalar:bfloat16' '"in.npy"' '' '4:bool -2 +7 .5'; do
  printf 'S%s' "$spec" > "$corpus/inputs/spec$((i++))"
done
{ printf 'N'; cat "$scratch/run_x.npy"; } > "$corpus/inputs/run_x_npy"
{ printf 'T'; cat "$scratch/run_x.pt"; } > "$corpus/inputs/run_x_pt"
# Records shorter than their tensors, and specs nested deeper than the parser reads.
for f in short_tensor short_view empty_tensor; do { printf 'T'; cat "$scratch/damaged/$f.pt"; } > "$corpus/inputs/$f"; done
{ printf 'T'; cat "$scratch/safety/wrong_shape.pt"; } > "$corpus/inputs/safety_wrong_shape_pt"
{ printf 'N'; head -c 4096 "$scratch/safety/no_magic.npy"; } > "$corpus/inputs/safety_no_magic_npy"
printf 'S6000x3x224x224' > "$corpus/inputs/spec_oversized"
cp "$scratch"/safety/*.rule "$corpus/rules/"
"$py" - "$corpus/inputs" <<'PY'
import os, sys
seeds = {"nest_parens": "(" * 300 + "2x8" + ")" * 300, "nest_brackets": "[" * 2000,
         "nest_mixed": "([{" * 100 + "1x8" + "}])" * 100, "nest_unclosed": "([" * 500 + "1"}
for name, spec in seeds.items():
    open(os.path.join(sys.argv[1], name), "w").write("S" + spec)
PY

"$root/build/fuzz/tests/fuzz/fuzz_journal_seeds" "$corpus/journal"
"$py" "$root/tests/python/fake_host.py" --write-seeds "$corpus/wire"
du -sh "$corpus"
