# Sourced by the GPU-machine scripts: builds the CLI (no GUI, no tests) for the H100/H200
# (sm_90) with the header-only dependencies carried in .deps/, plus any extra targets.
# Usage: gpu_build OUT_DIR TARGET...   (sets $build and $cli; the log is OUT_DIR/cmake.log)
gpu_build() {
  local out=$1
  shift
  build=${BUILD_DIR:-/tmp/streamlab-build}
  local deps=()
  [ -d .deps ] && deps=(-DSTREAMLAB_DEPS_DIR="$PWD/.deps")
  export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
  cmake -S . -B "$build" -G Ninja -DSTREAMLAB_TESTS=OFF -DSTREAMLAB_GUI=OFF "${deps[@]}" \
    -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/cmake.log" 2>&1
  cmake --build "$build" -j "$(nproc)" --target streamlab-cli "$@" >>"$out/cmake.log" 2>&1 || {
    tail -30 "$out/cmake.log"
    return 1
  }
  cli="$build/app/cli/streamlab-cli"
}
