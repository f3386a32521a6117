#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   packaging/dev.sh run    install what is missing, build Release, open the GUI on a sample
#   packaging/dev.sh test   install what is missing, build Release, run the whole test suite
# Never waits for input (CI sets CI=true).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-run}"

bash packaging/install-deps.sh
cmake --preset release
cmake --build --preset release

case "$mode" in
  run)
    exec build/release/app/graft --sample "${GRAFT_SAMPLE:-cnn}"
    ;;
  test)
    # Qt Test prints its own totals per executable; ctest closes with the overall count.
    ctest --preset release --output-on-failure
    ;;
  *)
    echo "usage: packaging/dev.sh run|test" >&2
    exit 2
    ;;
esac
