#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running StreamLab or a green test run:
#   scripts/setup.sh run    install what is missing, build, open the app
#   scripts/setup.sh test   install what is missing, build (warnings as errors, in build-test/), run all tests:
#                           an ASan+UBSan build's tests, the fuzzers for 60 s each, then
#                           every test of the normal build (the GUI's under Xvfb)
# Packages come from Debian (apt-get, with sudo when not root). CUDA is used when nvcc is
# present (/usr/local/cuda); without it the simulator-only build still has every lab.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
shift || true
case "$mode" in run|test|build) ;; *) echo "usage: scripts/setup.sh run|test|build" >&2; exit 2;; esac

packages=(build-essential cmake ninja-build pkg-config git
          nlohmann-json3-dev libcli11-dev libgtest-dev zlib1g-dev liblzma-dev xz-utils
          libimgui-dev libglfw3-dev libgl-dev libfontconfig-dev libfreetype-dev fonts-noto-cjk
          xvfb xauth python3)
# The sanitizer and fuzzing stages of the tests need clang and its runtimes.
[ "$mode" = test ] && packages+=(clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

# Each mode keeps a build folder of its own, so that `run` after `test` (or the other way
# round) reuses what is built instead of rebuilding every target with other warning flags:
# `run` and `build` use build/ (warnings shown), `test` uses build-test/ (warnings as errors).
build_dir=${STREAMLAB_BUILD_DIR:-build}
werror=OFF
flags=()
if [ "$mode" = test ]; then
  build_dir="$build_dir-test"
  werror=ON
  # The tests' builds need no debugger: the same -O2 without debug info (line tables where a
  # sanitizer report names lines) compiles and links in less time (CI's 35 minutes, issue 68).
  flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG")
fi
started=$(date +%s)
stage() { echo "== [$(( $(date +%s) - started )) s] $*"; }
# The whole run's time, said last whatever its end (CI's limit is 90 minutes; the goal 35).
[ "$mode" = test ] && trap 'status=$?; stage "finished, exit $status, in $(( ($(date +%s) - started) / 60 )) min"' EXIT
cmake -S . -B "$build_dir" -G Ninja -DSTREAMLAB_WERROR=$werror "${flags[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"

case "$mode" in
  test)
    # One clang build serves the sanitizers and the fuzzers: clang compiles with ASan+UBSan in
    # about 40 % of gcc's time, and the fuzz targets need clang anyway (issue 68: CI's time).
    stage "ASan + UBSan build (clang, with the fuzz targets) of the engine, labs and CLI, and their tests"
    CC=clang CXX=clang++ cmake -S . -B "$build_dir-asan" -G Ninja -DSTREAMLAB_SANITIZE=ON -DSTREAMLAB_FUZZ=ON \
      -DSTREAMLAB_CUDA=OFF -DSTREAMLAB_GUI=OFF -DSTREAMLAB_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
    cmake --build "$build_dir-asan" -j "$(nproc)"
    # The memory soak is left to the normal build: ASan's quarantine keeps freed memory
    # resident on purpose. LeakSanitizer reports real leaks here instead. The second corpus half
    # reads the same kinds of trace as the first: once, in the normal build, is enough.
    (cd "$build_dir-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
       ctest --output-on-failure -j "$(nproc)" -E '^(cli\.soak|corpus\.heldout[0-9]*_seen)$')
    stage "fuzzing each input format for ${STREAMLAB_FUZZ_SECONDS:-60} s"
    STREAMLAB_FUZZ_BUILD_DIR="$build_dir-asan" UBSAN_OPTIONS=halt_on_error=1 scripts/fuzz.sh "${STREAMLAB_FUZZ_SECONDS:-60}"
    stage "all tests of the normal build"
    cd "$build_dir"
    if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null 2>&1; then
      # The GUI tests need a display; give them a virtual one.
      xvfb-run -a -s "-screen 0 1280x800x24" ctest --output-on-failure -j "$(nproc)"
    else
      ctest --output-on-failure -j "$(nproc)"
    fi
    ;;
  run)
    gui="$build_dir/app/gui/streamlab"
    if [ -x "$gui" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      exec "$gui" "$@"
    fi
    echo "== no display (or no GUI build): running a lab in the terminal instead"
    "$build_dir/app/cli/streamlab-cli" list
    exec "$build_dir/app/cli/streamlab-cli" run w2-legacy-default-stall --backend auto "$@"
    ;;
esac
