# Sourced by the GPU-machine scripts: builds the CLI (no GUI, no tests) for the H100/H200
# (sm_90) with the header-only dependencies carried in .deps/, plus any extra targets, and
# captures lab variants on the GPU.
# Usage: gpu_build OUT_DIR TARGET...   (sets $build and $cli; the log is OUT_DIR/cmake.log)
gpu_build() {
  local out=$1
  shift
  build=${BUILD_DIR:-/tmp/streamlab-build}
  local deps=()
  [ -d .deps ] && deps=(-DSTREAMLAB_DEPS_DIR="$PWD/.deps")
  export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
  # NCCL comes with PyTorch's environment here (nvidia-nccl-cu*): its include/ and lib/.
  [ -z "${NCCL_ROOT:-}" ] && NCCL_ROOT=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null) &&
    export NCCL_ROOT
  cmake -S . -B "$build" -G Ninja -DSTREAMLAB_TESTS=OFF -DSTREAMLAB_GUI=OFF "${deps[@]}" \
    -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/cmake.log" 2>&1
  cmake --build "$build" -j "$(nproc)" --target streamlab-cli "$@" >>"$out/cmake.log" 2>&1 || {
    tail -30 "$out/cmake.log"
    return 1
  }
  cli="$build/app/cli/streamlab-cli"
}

# Captures a real-GPU trace of every variant of the labs named (all labs if none) into
# OUT_DIR/fixtures/LAB.VARIANT.json; failures go to OUT_DIR/capture.log. Needs gpu_build first.
# Usage: capture_variants OUT_DIR [LAB...]
capture_variants() {
  local out=$1
  shift
  local labs=("$@") lab v
  [ ${#labs[@]} -eq 0 ] && mapfile -t labs < <("$cli" list | awk '/^  [a-z]/{print $1}')
  mkdir -p "$out/fixtures"
  for lab in "${labs[@]}"; do
    for v in $("$cli" list | awk -v id="$lab" '$1 == id {found = 1; next} found {sub(/ *params:.*/, ""); sub(/.*variants: */, ""); print; exit}'); do
      "$cli" run "$lab" --variant "$v" --backend cuda --quiet --out "$out/fixtures/$lab.$v.json" \
        >>"$out/capture.log" 2>&1 || echo "capture failed: $lab $v" >>"$out/capture.log"
    done
  done
}
