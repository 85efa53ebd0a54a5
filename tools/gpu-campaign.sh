#!/usr/bin/env bash
# The CUDA backend on a machine with an NVIDIA GPU (issue 20): builds, runs the CUDA tests
# (ctest label gpu: the CUDA backend's and the kDLCUDA plugin's), the host property suite
# (ctest label property: the CPU kernels' properties, for the build's record; there is no CUDA
# point evaluator), `peconform run --profile ci --backend cuda`, and the RoPE benchmark (bf16
# and fp32 on [1, 4096, 32, 128] and [1, 131072, 8, 128] against a device-to-device copy of the
# same bytes measured in the same run; PyTorch eager rotate_half too when torch with CUDA is
# installed), and writes everything to
# reports/gpu/<device>-<date>/. Exits 0 only when every step passed; 2 where there is no GPU.
#
# Usage: tools/gpu-campaign.sh [extra arguments for peconform run]
#   CMAKE_CUDA_ARCHITECTURES (environment) overrides the build's 80;90, e.g. "native".
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu-campaign.sh: no NVIDIA driver here (nvidia-smi not found); run it on a machine with an NVIDIA GPU" >&2
  exit 2
fi
if ! gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1) || [[ -z "$gpus" ]]; then
  echo "gpu-campaign.sh: nvidia-smi finds no GPU: $gpus" >&2
  exit 2
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [[ ! -x "$nvcc" ]]; then
  echo "gpu-campaign.sh: nvcc not found on PATH nor at /usr/local/cuda/bin/nvcc; install the CUDA toolkit" >&2
  exit 2
fi

if [[ $(id -u) -eq 0 ]]; then scripts/install-deps.sh; fi
build=build/gpu
archs=()
if [[ -n "${CMAKE_CUDA_ARCHITECTURES:-}" ]]; then archs=(-DCMAKE_CUDA_ARCHITECTURES="$CMAKE_CUDA_ARCHITECTURES"); fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DPECONFORM_WARNINGS_AS_ERRORS=ON -DCMAKE_CUDA_COMPILER="$nvcc" "${archs[@]}" >/dev/null
cmake --build "$build" --target peconform cuda_backend_test cuda_plugin_test cuda_rope_plugin cuda_rope_bench property_test \
  exact_property_test

device=$(head -n 1 <<<"$gpus" | tr -c 'A-Za-z0-9.\n-' '-' | tr -s '-' | sed 's/-$//')
out="reports/gpu/${device}-$(date -u +%Y-%m-%d)"
mkdir -p "$out"
echo "gpu-campaign.sh: writing to $out"
failed=()
step() {  # step NAME COMMAND...: runs it with its output in $out/NAME.txt, records a failure
  local name=$1
  shift
  echo "== $name: $*"
  if "$@" >"$out/$name.txt" 2>&1; then echo "   passed"; else echo "   FAILED (exit $?; $out/$name.txt)"; failed+=("$name"); fi
}

{
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
  "$nvcc" --version | tail -n 1
} >"$out/machine.txt"

step cuda-tests ctest --test-dir "$build" -L gpu --output-on-failure
step properties ctest --test-dir "$build" -L property --output-on-failure
step campaign "$build/tools/peconform" run --backend cuda --profile ci --no-save --out "$out/campaign" "$@"
# The benchmark prints its JSON on stdout: bench.json holds that alone, its messages go to bench.txt.
echo "== bench: $build/backends/cuda/cuda_rope_bench --repeats 50"
if "$build/backends/cuda/cuda_rope_bench" --repeats 50 >"$out/bench.json" 2>"$out/bench.txt"; then
  echo "   passed"
else
  echo "   FAILED (exit $?; $out/bench.txt)"
  failed+=(bench)
  rm -f "$out/bench.json"
fi

torch_python=""
for python in python3 /usr/bin/python3; do
  if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then torch_python=$python; break; fi
done
if [[ -n "$torch_python" ]]; then
  # Hugging Face's eager RoPE (transformers modeling_llama.py): q * cos + rotate_half(q) * sin,
  # cos/sin ahead of time, q as [batch, heads, seq, dim]; next to torch's own copy of q.
  step torch "$torch_python" - <<'PY'
import json
import torch

def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

def median_ms(run, repeats=50):
    run()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]

records = []
for batch, seq, heads, dim in ((1, 4096, 32, 128), (1, 131072, 8, 128)):
    for name, dtype in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        q = torch.empty(batch, heads, seq, dim, device="cuda").uniform_(-1, 1).to(dtype)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, dim, 2, device="cuda").float() / dim))
        emb = torch.cat((torch.outer(torch.arange(seq, device="cuda").float(), inv_freq),) * 2, dim=-1)
        cos, sin = emb.cos().to(dtype)[None, None], emb.sin().to(dtype)[None, None]
        rope = median_ms(lambda: q * cos + rotate_half(q) * sin)
        copy = median_ms(lambda: q.clone())
        records.append({"shape": [batch, seq, heads, dim], "dtype": name, "torch_rotate_half_ms": round(rope, 4),
                        "torch_clone_ms": round(copy, 4), "fraction_of_copy": round(copy / rope, 3)})
print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "records": records}, indent=2))
PY
else
  echo "torch with CUDA not found: no PyTorch baseline" >"$out/torch.txt"
fi

{
  echo "# CUDA campaign on $(head -n 1 <<<"$gpus")"
  echo
  sed 's/^/    /' "$out/machine.txt"
  echo
  echo "Steps failed: ${failed[*]:-none}"
  echo
  echo "## peconform run --backend cuda --profile ci"
  if [[ -f "$out/campaign/summary.md" ]]; then cat "$out/campaign/summary.md"; else tail -n 20 "$out/campaign.txt"; fi
  echo
  echo "## RoPE against the device's copy bandwidth (cuda_rope_bench)"
  echo
  if [[ -f "$out/bench.json" ]]; then sed 's/^/    /' "$out/bench.json"; fi
  sed 's/^/    /' "$out/bench.txt"
  echo
  echo "## PyTorch eager rotate_half"
  echo
  sed 's/^/    /' "$out/torch.txt"
} >"$out/README.md"

echo "gpu-campaign.sh: report in $out/README.md"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "gpu-campaign.sh: failed steps: ${failed[*]}" >&2
  exit 1
fi
