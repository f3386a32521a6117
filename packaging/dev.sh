#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   packaging/dev.sh build  install what is missing (Debian packages, .venv with the pinned torch
#                           wheel), build Release into build/release/
#   packaging/dev.sh run    the same, then open the GUI on a sample
#   packaging/dev.sh test   the same, then run the whole test suite, and build graft_core and
#                           graft-cli against torch 2.11 too (packaging/check-torch211.sh)
# Never waits for input (CI sets CI=true).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-run}"
case "$mode" in
  build|run|test) ;;
  *)
    echo "usage: packaging/dev.sh build|run|test" >&2
    exit 2
    ;;
esac

bash packaging/install-deps.sh
bash packaging/setup-venv.sh
cmake --preset release
cmake --build --preset release

case "$mode" in
  run)
    exec build/release/app/graft --sample "${GRAFT_SAMPLE:-cnn}"
    ;;
  test)
    # Qt Test prints its own totals per executable; ctest closes with the overall count.
    status=0
    ctest --preset release --output-on-failure || status=$?
    # graft_core and graft-cli against torch 2.11 (the oldest supported, the GPU machine's):
    # a compile and link check, a few minutes; GRAFT_SKIP_TORCH211=1 skips it.
    if [ -z "${GRAFT_SKIP_TORCH211:-}" ]; then
      bash packaging/check-torch211.sh || status=1
    fi
    exit "$status"
    ;;
esac
