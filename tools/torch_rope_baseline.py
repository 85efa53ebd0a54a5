#!/usr/bin/python3
"""PyTorch's CPU implementation of Hugging Face's rotate_half RoPE, timed on the shape of
`peconform bench`, next to peconform's own kernels measured in the same run.

Hugging Face (transformers, modeling_llama.py) applies RoPE as q * cos + rotate_half(q) * sin,
with rotate_half(x) = cat(-x[..., d/2:], x[..., :d/2]) and cos/sin = cos/sin of
cat(freqs, freqs), freqs = outer(positions, inv_freq). "table" times the application alone
with cos/sin computed ahead; "on-the-fly" also computes cos/sin from the position ids, as
LlamaRotaryEmbedding.forward does on every call.

Needs Debian's python3-torch; run it with /usr/bin/python3. Prints a table, or JSON.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import torch

SEQ, HEADS, DIM = 4096, 32, 128
BASE = 10000.0


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def cos_sin(positions, dtype):
    inv_freq = 1.0 / (BASE ** (torch.arange(0, DIM, 2, dtype=torch.int64).float() / DIM))
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def time_median(run, repeats):
    run()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def torch_records(repeats):
    positions = torch.arange(SEQ)
    records = []
    for dtype_name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        # [batch, heads, seq, dim], as Hugging Face holds q after its transpose.
        q = torch.empty(1, HEADS, SEQ, DIM).uniform_(-1, 1).to(dtype)
        cos, sin = cos_sin(positions, dtype)

        def table():
            return q * cos[None, None] + rotate_half(q) * sin[None, None]

        def on_the_fly():
            c, s = cos_sin(positions, dtype)
            return q * c[None, None] + rotate_half(q) * s[None, None]

        for mode, run in (("table", table), ("on-the-fly", on_the_fly)):
            records.append({"name": f"torch-rotate-half-{dtype_name}-{mode}", "dtype": dtype_name, "mode": mode,
                            "milliseconds": time_median(run, repeats) * 1e3})
    return records


def peconform_records(binary, repeats):
    output = subprocess.run([binary, "bench", "--json", "--repeats", str(repeats), "--only", "rope-half-"],
                            check=True, capture_output=True, text=True).stdout
    return {record["name"]: record for record in json.loads(output)["records"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peconform", required=True, help="path to the peconform binary")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.threads < 1 or args.repeats < 1:
        sys.exit(f"error: --threads and --repeats must be >= 1, found {args.threads} and {args.repeats}")
    torch.set_num_threads(args.threads)
    ours = peconform_records(args.peconform, args.repeats)
    rows = []
    for record in torch_records(args.repeats):
        dtype, mode = record["dtype"], record["mode"]
        counterpart = f"rope-half-{dtype}-table-out-of-place" if mode == "table" else f"rope-half-{dtype}-on-the-fly"
        mine = ours[counterpart]
        rows.append({**record, "peconform": counterpart, "peconform_milliseconds": mine["milliseconds"],
                     "torch_over_peconform": record["milliseconds"] / mine["milliseconds"]})
    if args.json:
        print(json.dumps({"torch": torch.__version__, "threads": args.threads, "shape": [1, SEQ, HEADS, DIM],
                          "rows": rows}, indent=2))
        return
    print(f"torch {torch.__version__}, {args.threads} threads, shape [1, {SEQ}, {HEADS}, {DIM}], median of {args.repeats}")
    print(f"{'torch':<34} {'ms':>9}   {'peconform':<36} {'ms':>9} {'torch/peconform':>16}")
    for row in rows:
        print(f"{row['name']:<34} {row['milliseconds']:>9.3f}   {row['peconform']:<36} "
              f"{row['peconform_milliseconds']:>9.3f} {row['torch_over_peconform']:>16.2f}")


if __name__ == "__main__":
    main()
