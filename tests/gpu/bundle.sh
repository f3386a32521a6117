#!/usr/bin/env bash
# graft-cli for the GPU machine, which has torch 2.11 in its python3 but no Qt, Graphviz or package
# registry: built here against the torch 2.11 wheel (packaging/check-torch211.sh release), then
# packed with every library it needs that is neither torch's nor the system's (Qt, Graphviz, ICU,
# …) and Qt's offscreen plugin, with xz, into build/gpu-bundle/bundle.tar.xz (about 20 MB; refused
# above 60 MB). tests/gpu/run.sh unpacks it there and puts that python3's torch/lib first.
#   bash tests/gpu/bundle.sh            build (incrementally) and pack
#   GRAFT_BUNDLE_NO_BUILD=1 …           pack what build/torch211-release holds
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
build="${GRAFT_BUNDLE_BUILD:-build/torch211-release}"
torch_lib="$(cd "${GRAFT_TORCH211_DIR:-build/torch211}/torch/lib" 2> /dev/null && pwd || true)"
out="${GRAFT_BUNDLE_DIR:-build/gpu-bundle}"
if [ -z "${GRAFT_BUNDLE_NO_BUILD:-}" ]; then
  GRAFT_TORCH211_BUILD="$build" bash packaging/check-torch211.sh release
  torch_lib="$(cd "${GRAFT_TORCH211_DIR:-build/torch211}/torch/lib" && pwd)"
fi
[ -x "$build/app/graft-cli" ] || { echo "no $build/app/graft-cli: run without GRAFT_BUNDLE_NO_BUILD" >&2; exit 1; }

# Staged beside the bundle, not in it: build/gpu-bundle holds only what travels (carry it whole).
stage="${out%/}-stage"
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/plugins/platforms"
cp "$build/app/graft-cli" "$stage/bin/"
strip "$stage/bin/graft-cli"
plugin=/usr/lib/x86_64-linux-gnu/qt6/plugins/platforms/libqoffscreen.so
cp "$plugin" "$stage/plugins/platforms/"
# What the binary and the plugin load, less torch's own libraries (the GPU machine's torch brings
# them and the CUDA ones), glibc's and the compiler runtime's (the machine's own).
for f in "$stage/bin/graft-cli" "$plugin"; do
  LD_LIBRARY_PATH="$torch_lib" ldd "$f" | awk '/=>/ && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libtorch*|libc10*|libcaffe2*|libshm*|libgomp*|libcuda*|libcudart*|libcublas*|libcudnn*|libcufft*|libcurand*) ;;
    libcusparse*|libcusolver*|libnccl*|libnv*|libcupti*) ;;
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*|libutil.so.*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
grep -h "define TORCH_VERSION_M" build/torch211/torch/include/torch/headeronly/version.h 2> /dev/null |
  awk '{printf "%s%s", sep, $3; sep="."} END {print ""}' > "$stage/torch-version" || true
git rev-parse --short HEAD > "$stage/commit" 2> /dev/null || true
tar -cJf "$out/bundle.tar.xz" -C "$stage" .
size=$(stat -c %s "$out/bundle.tar.xz")
echo "$out/bundle.tar.xz: $((size / 1048576)) MB, $(ls "$stage/lib" | wc -l) libraries, torch $(cat "$stage/torch-version")"
[ "$size" -le $((60 * 1048576)) ] || { echo "the bundle is over 60 MB" >&2; exit 1; }
