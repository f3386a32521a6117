#!/usr/bin/env bash
# The one-command GPU check, on the GPU machine (torch 2.11 with CUDA in its python3; no Qt or
# Graphviz there): graft-cli from the bundle that tests/gpu/bundle.sh made here, models made with
# that machine's own torch (make_models.py), every job of graft-cli on CUDA (and through
# ssh://gpu-loop/cuda:0, a loopback sshd, where the machine has sshd), and PyTorch's own
# figures for the same files and inputs (torch_ref.py), in one table (table.py). At most 8 minutes:
# steps still to run after GRAFT_GPU_LIMIT seconds (default 420) are listed as skipped, and none
# runs past GRAFT_GPU_DEADLINE (450). The Llama's own compares come last: they are the first cut.
#
#   bash tests/gpu/run.sh [BUNDLE]     from the repository root; BUNDLE defaults to
#                                      build/gpu-bundle/bundle.tar.xz
# Results under $OUT (default /tmp/graft-gpu-out): log, table.txt, results.tgz (every step's JSON
# and stderr). Exit 0 when every step gave an answer, 1 when one failed or was skipped.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="${1:-${GRAFT_GPU_BUNDLE:-$here/build/gpu-bundle/bundle.tar.xz}}"
OUT="${OUT:-/tmp/graft-gpu-out}"
work="${GRAFT_GPU_WORK:-/tmp/graft-gpu}"
limit="${GRAFT_GPU_LIMIT:-420}"      # no step starts after this many seconds
deadline="${GRAFT_GPU_DEADLINE:-450}"  # and none runs past this: the table follows, under 8 minutes in all
py="${GRAFT_GPU_PYTHON:-python3}"
G="$here/tests/gpu"
mkdir -p "$OUT"
rm -rf "$work"
mkdir -p "$work/m" "$work/j" "$work/b"
M="$work/m" J="$work/j"
exec > >(tee "$OUT/log") 2>&1
t0=$(date +%s)
el() { echo "[$(($(date +%s) - t0))s] $*"; }

nvidia-smi -L 2> /dev/null || echo "nvidia-smi: not available"
"$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
torch_lib="$("$py" -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))")"
"$py" -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$bundle" "$work/b" ||
  { el "cannot unpack $bundle (make it with: bash tests/gpu/bundle.sh)"; exit 1; }
export LD_LIBRARY_PATH="$torch_lib:$work/b/lib" QT_QPA_PLATFORM=offscreen QT_PLUGIN_PATH="$work/b/plugins"
C="$work/b/bin/graft-cli"
machine_torch="$("$py" -c "import torch; print('.'.join(torch.__version__.split('.')[:2]))")"
echo "bundle: commit $(cat "$work/b/commit" 2> /dev/null), built against torch $(cat "$work/b/torch-version" 2> /dev/null); this machine: $machine_torch"
ldd "$C" | grep "not found"
"$C" --version || { el "graft-cli does not start"; exit 1; }

# step NAME TIMEOUT COMMAND...: stdout to J/NAME.json, stderr to J/NAME.err, one line of summary.
step() {
  local name=$1 limit_s=$2
  shift 2
  local left=$((deadline - ($(date +%s) - t0)))
  [ "$limit_s" -gt "$left" ] && limit_s=$left
  if [ $(($(date +%s) - t0)) -gt "$limit" ] || [ "$limit_s" -lt 10 ]; then
    printf "%-22s skipped (past %ss)\n" "$name" "$limit"
    printf "%s\tskipped\t0\n" "$name" >> "$J/steps.tsv"
    return
  fi
  local s
  s=$(date +%s.%N)
  timeout "$limit_s" "$@" > "$J/$name.json" 2> "$J/$name.err"
  local rc=$?
  local took
  took=$(awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN {printf "%.1f", a - b}')
  printf "%s\t%s\t%s\n" "$name" "$rc" "$took" >> "$J/steps.tsv"
  printf "%-22s rc=%-3s %6ss  %s\n" "$name" "$rc" "$took" "$(grep -v '^\s*$' "$J/$name.err" | head -c 200 | tr '\n' ' ')"
}

el "models: resnet50 (.pt, .pt2 with a dynamic batch), vit_b_16 (.pt2); the Llama in the background"
# The ~1B Llama takes a minute or two to build and export: in the background, from the start.
(timeout 300 "$py" "$G/make_models.py" llm "$M" > "$M/llm.log" 2>&1) &
llm_pid=$!
timeout 150 "$py" "$G/make_models.py" cnn "$M" | tail -n 1

el "info"
step info-r50pt 60 "$C" info "$M/resnet50.pt" --json
step info-r50pt2 60 "$C" info "$M/resnet50.pt2" --json
step info-vit 60 "$C" info "$M/vit_b_16.pt2" --json
el "compare: CPU against CUDA, default TF32 and --tf32 off"
step cc-r50pt 90 "$C" compare "$M/resnet50.pt" "$M/resnet50.pt" --input 1x3x224x224 --device cpu --device-b cuda --per-node --json
step cc-r50pt2 90 "$C" compare "$M/resnet50.pt2" "$M/resnet50.pt2" --device cpu --device-b cuda --json
step cc-vit 90 "$C" compare "$M/vit_b_16.pt2" "$M/vit_b_16.pt2" --device cpu --device-b cuda --json
step cc-r50pt2-tf32off 90 "$C" compare "$M/resnet50.pt2" "$M/resnet50.pt2" --device cpu --device-b cuda --tf32 off --json
step cc-vit-tf32off 90 "$C" compare "$M/vit_b_16.pt2" "$M/vit_b_16.pt2" --device cpu --device-b cuda --tf32 off --json
el "compare: self, per node, on CUDA"
step gg-r50pt 90 "$C" compare "$M/resnet50.pt" "$M/resnet50.pt" --input 1x3x224x224 --device cuda --per-node --json
step gg-vit 90 "$C" compare "$M/vit_b_16.pt2" "$M/vit_b_16.pt2" --device cuda --per-node --json
el "compare: B at bfloat16 on CUDA"
step bf16-r50pt2 90 "$C" compare "$M/resnet50.pt2" "$M/resnet50.pt2" --device cuda --dtype-b bfloat16 --per-node --json
step bf16-vit 90 "$C" compare "$M/vit_b_16.pt2" "$M/vit_b_16.pt2" --device cuda --dtype-b bfloat16 --per-node --json
el "fold-conv-bn, then compare on CUDA"
step fold-r50pt 90 "$C" rewrite "$M/resnet50.pt" --rule fold-conv-bn -o "$work/folded.pt" --json
step foldcc-r50pt 90 "$C" compare "$M/resnet50.pt" "$work/folded.pt" --input 1x3x224x224 --device cuda --per-node --json
step fold-r50pt2 90 "$C" rewrite "$M/resnet50.pt2" --rule fold-conv-bn -o "$work/folded.pt2" --json
step foldcc-r50pt2 90 "$C" compare "$M/resnet50.pt2" "$work/folded.pt2" --device cuda --per-node --json

el "remote: the same GPU through ssh://gpu-loop/cuda:0 (a loopback sshd), as a desktop reaches a server"
. "$G/loopback_ssh.sh"
if loopback_ssh "$work/ssh" > "$work/ssh.why" 2>&1; then
  R="ssh://gpu-loop/cuda:0?python=$(command -v "$py")"
  step rc-r50pt2 120 "$C" compare "$M/resnet50.pt2" "$M/resnet50.pt2" --device cpu --device-b "$R" --per-node --json
  step rc-vit 120 "$C" compare "$M/vit_b_16.pt2" "$M/vit_b_16.pt2" --device cpu --device-b "$R" --json
  step rp-r50pt2-b32 120 "$C" profile "$M/resnet50.pt2" --input 32x3x224x224 --device "$R" --runs 30 --json
  step rs-vit 90 "$C" shapes "$M/vit_b_16.pt2" --input 1x3x224x224 --device "$R" --json
  loopback_ssh_stop "$work/ssh"
else
  why=$(tail -n 1 "$work/ssh.why")
  for s in rc-r50pt2 rc-vit rp-r50pt2-b32 rs-vit; do
    printf "%-22s skipped (%s)\n" "$s" "$why"
    printf "%s\tskipped\t0\n" "$s" >> "$J/steps.tsv"
  done
fi

el "waiting for the Llama export"
wait "$llm_pid"
tail -n 1 "$M/llm.log"
L="$M/llama.pt2"
[ -f "$L" ] || el "no llama.pt2: $(tail -c 300 "$M/llm.log")"
[ -f "$L" ] && step info-llama 90 "$C" info "$L" --json

# Timings with the machine otherwise quiet (the export is over): Graft's, then PyTorch's.
el "profile on CUDA: kernels from the profiler's GPU activity, and memory"
step pf-r50pt-b1 90 "$C" profile "$M/resnet50.pt" --input 1x3x224x224 --device cuda --runs 30 --json
step pf-r50pt-b32 90 "$C" profile "$M/resnet50.pt" --input 32x3x224x224 --device cuda --runs 30 --json
step pf-r50pt2-b32 90 "$C" profile "$M/resnet50.pt2" --input 32x3x224x224 --device cuda --runs 30 --json
step pf-vit 90 "$C" profile "$M/vit_b_16.pt2" --device cuda --runs 30 --trace "$J/vit-trace.json" --json
[ -f "$L" ] && step pf-llama 120 "$C" profile "$L" --device cuda --runs 20 --json
step mem-r50pt-b32 90 "$C" profile "$M/resnet50.pt" --input 32x3x224x224 --device cuda --memory --runs 3 --json
step mem-vit 90 "$C" profile "$M/vit_b_16.pt2" --device cuda --memory --runs 3 --json
[ -f "$L" ] && step mem-llama 120 "$C" profile "$L" --device cuda --memory --runs 3 --json

el "PyTorch's own figures"
refs=("$M/resnet50.pt@1x3x224x224" "$M/resnet50.pt@32x3x224x224" "$M/resnet50.pt2@32x3x224x224" "$M/vit_b_16.pt2@1x3x224x224")
[ -f "$L" ] && refs+=("$L@$M/llama.ids.pt")
ref_s=$((deadline - ($(date +%s) - t0) - 10))
[ "$ref_s" -gt 150 ] && ref_s=150
[ "$ref_s" -lt 20 ] && ref_s=20
timeout "$ref_s" "$py" "$G/torch_ref.py" "${refs[@]}" > "$J/torch_ref.json" 2> "$J/torch_ref.err"
el "torch_ref rc=$?"

if [ -f "$L" ]; then
  el "the Llama: CPU against CUDA (sample and a longer sequence), self per node on CUDA, bfloat16"
  step cc-llama 120 "$C" compare "$L" "$L" --device cpu --device-b cuda --json
  step cc-llama-seq40 120 "$C" compare "$L" "$L" --input "$M/llama.ids40.pt" --device cpu --device-b cuda --json
  step bf16-llama 120 "$C" compare "$L" "$L" --device cuda --dtype-b bfloat16 --per-node --json
  step gg-llama 120 "$C" compare "$L" "$L" --device cuda --per-node --json
  step cc-llama-tf32off 120 "$C" compare "$L" "$L" --device cpu --device-b cuda --tf32 off --json
fi

"$py" "$G/table.py" "$J" "$M" | tee "$OUT/table.txt"
status=${PIPESTATUS[0]}
gzip -f "$J/vit-trace.json" 2> /dev/null
cp "$M"/made-*.json "$J/" 2> /dev/null
tar -czf "$OUT/results.tgz" -C "$work" j
el "done"
exit "$status"
