#!/usr/bin/env bash
# graft_core and graft-cli built against torch 2.11, the oldest release FindWheelTorch accepts and
# the one on the GPU machine. A build against the venv's newer wheel alone hides what 2.11 lacks
# (interned op symbols such as c10::aten::numel: core/model/op_symbols.h makes those by name).
#
#   packaging/check-torch211.sh          compile and link check (-O0, no debug info): CI, a few minutes
#   packaging/check-torch211.sh release  an optimised graft-cli for the GPU machine (tests/gpu/bundle.sh)
#
# The wheel is downloaded once (`pip download torch==2.11.0 --no-deps`, about 530 MB) and only what
# linking needs is kept: torch/include and libtorch, libtorch_cpu and libc10 (Graft links those
# three; the CUDA libraries they load at run time are not needed to link, hence
# --allow-shlib-undefined). Environment:
#   GRAFT_TORCH211_DIR    where the unpacked torch is kept (default build/torch211)
#   GRAFT_TORCH211_BUILD  the build folder (default build/torch211-build, build/torch211-release)
#   GRAFT_TORCH211_JOBS   parallel compile jobs (default: nproc)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-check}"
version=2.11.0
case "$mode" in
  check) default_build=build/torch211-build ;;
  release) default_build=build/torch211-release ;;
  *)
    echo "usage: packaging/check-torch211.sh [check|release]" >&2
    exit 2
    ;;
esac
root="${GRAFT_TORCH211_DIR:-build/torch211}"
build="${GRAFT_TORCH211_BUILD:-$default_build}"
jobs="${GRAFT_TORCH211_JOBS:-$(nproc)}"
torch="$root/torch"

if [ ! -f "$torch/include/torch/script.h" ] || [ ! -f "$torch/lib/libtorch_cpu.so" ]; then
  python=.venv/bin/python
  [ -x "$python" ] || python=python3
  mkdir -p "$root/download"
  echo "torch $version: downloading the wheel"
  "$python" -m pip download --quiet --no-deps --only-binary=:all: "torch==$version" -d "$root/download"
  wheel="$(ls "$root"/download/torch-"$version"-*.whl | head -n 1)"
  rm -rf "$torch"
  "$python" - "$wheel" "$root" <<'PY'
import sys, zipfile
keep = ("torch/lib/libtorch.so", "torch/lib/libtorch_cpu.so", "torch/lib/libc10.so")
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith("torch/include/") or name in keep:
            z.extract(name, sys.argv[2])
PY
  rm -rf "$root/download"
fi

if [ "$mode" = check ]; then
  # Only whether it compiles and links: no optimisation, no debug info.
  flags=(-DCMAKE_BUILD_TYPE=Check "-DCMAKE_CXX_FLAGS_CHECK=-O0 -g0")
else
  flags=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
fi
generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja > /dev/null; then generator=(-G Ninja); fi
cmake -S . -B "$build" "${generator[@]}" "${flags[@]}" \
  -DGRAFT_TORCH_DIR="$(cd "$torch" && pwd)" -DGRAFT_BUILD_TESTS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
grep -F "libtorch $version" "$build.configure.log" || { echo "configure did not pick torch $version" >&2; exit 1; }
cmake --build "$build" --target graft_core graft-cli -j "$jobs"
echo "torch $version: graft_core and graft-cli built in $build"
