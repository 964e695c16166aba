#!/usr/bin/env python3
"""Softmax of rows of any length: QuACK's shapes, blockjit vs torch vs Triton.

    python3 bench/softmax_long_rows.py --lib build/lib/libblockjit_c.so --out results/

The long-rows issue's benchmark: fp32 and bf16, N = 256, 512, ..., 262144
plus 5000, 50000 and 200000; M = 32768 rows for N <= 32768, else M * N =
2^31. Providers, in one process on the same tensors with the same timer
(bench_common.bench_ms: a fixed 50 runs, each between CUDA events after an
L2 flush and a GPU-side head start for the host; the median):
blockjit's `softmax` (one program per row, BLOCK_SIZE = next_power_of_2(N),
num_warps / num_stages / num_ctas and the grid chosen by its autotuner on
the first call of a shape: a persistent grid of the programs (clusters)
resident at once, one program a row, or about 8 rows a program),
blockjit's `softmax_online` (chunk and warps chosen by its autotuner),
blockjit's `softmax_rows` operation (whichever of the two its first call
times faster; any N), torch.softmax, torch.compile of
it (--compile; slow to build), the Triton tutorial kernel (where it
compiles) and a device copy of the same bytes. QuACK's published H100
figures (CuTe DSL, same metric and shapes) are printed beside them.
GB/s = 2 * M * N * sizeof(T) / time. Writes softmax_long_rows.csv and
softmax_long_rows.png.
"""
import argparse
import csv
import os
import statistics
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import bench_ms  # noqa: E402
from softmax_gpu import BlockjitSoftmax, triton_softmax  # noqa: E402

# QuACK's softmax on the H100 (GB/s) as published: fp32 about 2970-3030 for
# every N from 4K to 256K; bf16 at the listed N.
QUACK = {
    "float32": {n: 3000 for n in (4096, 8192, 16384, 32768, 65536, 131072, 262144)},
    "bfloat16": {4096: 2889, 16384: 2974, 32768: 2985, 65536: 3004,
                 131072: 3009, 262144: 3012},
}


def rows_for(n):
    return 32768 if n <= 32768 else (1 << 31) // n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", default="build/lib/libblockjit_c.so")
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--n", default=None, help="comma-separated N instead of the sweep")
    parser.add_argument("--dtypes", default="float32,bfloat16")
    parser.add_argument("--compile", action="store_true", help="also time torch.compile")
    parser.add_argument("--providers", default=None,
                        help="comma-separated subset of the providers to time "
                             "(default: all; copy is always timed)")
    parser.add_argument("--max-whole-row", type=int, default=262144,
                        help="skip blockjit's whole-row softmax beyond this N")
    opts = parser.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    lib = Blockjit(opts.lib)
    sizes = [1 << k for k in range(8, 19)] + [5000, 50000, 200000]
    if opts.n:
        sizes = [int(n) for n in opts.n.split(",")]
    sizes.sort()
    dtypes = [getattr(torch, d) for d in opts.dtypes.split(",")]
    providers = {
        "blockjit": BlockjitSoftmax(lib, "softmax"),
        "blockjit_online": BlockjitSoftmax(lib, "softmax_online"),
        "blockjit_rows": BlockjitSoftmax(lib, "softmax_rows"),
        "torch": lambda x, y: torch.softmax(x, dim=-1),
        "triton": triton_softmax,
        "copy": lambda x, y: y.copy_(x),
    }
    if opts.compile:
        compiled = torch.compile(lambda x: torch.softmax(x, dim=-1))
        providers["torch_compile"] = lambda x, y: compiled(x)
    if opts.providers:
        wanted = set(opts.providers.split(",")) | {"copy"}
        unknown = wanted - set(providers)
        if unknown:
            parser.error(f"unknown providers: {', '.join(sorted(unknown))}")
        providers = {k: v for k, v in providers.items() if k in wanted}
    name = torch.cuda.get_device_name()
    print(f"device: {name}; M = 32768 (N <= 32768) else M*N = 2^31; "
          "GB/s = 2*M*N*sizeof(T)/time (median of 50 runs, L2 flushed)")
    columns = list(providers) + ["quack"]
    print(f"{'dtype':9} {'N':>7} {'M':>6} " + " ".join(f"{c:>15}" for c in columns)
          + "  bj/copy best/copy", flush=True)
    # Without this the first point pays for the GPU clocks ramping up (fp32
    # N = 256 read 0.68 x copy first in a sweep, 0.9 when timed later).
    warm = torch.empty(1 << 28, device="cuda", dtype=torch.uint8)
    triton.testing.do_bench(lambda: warm.add_(1), warmup=500, rep=1000)
    del warm
    rows = []
    for dtype in dtypes:
        for n in sizes:
            m = rows_for(n)
            x = torch.randn(m, n, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            check = slice(0, min(m, 64))
            ref = torch.softmax(x[check].double(), dim=-1)
            tol = 1e-6 if dtype == torch.float32 else 1e-2
            row = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n}
            notes = []
            for provider, fn in providers.items():
                if provider == "blockjit" and n > opts.max_whole_row:
                    row[provider] = ""
                    continue
                try:
                    started = time.time()
                    y.fill_(float("nan"))
                    out = fn(x, y)  # torch's providers return a new tensor
                    out = y if out is None else out
                    torch.cuda.synchronize()
                    first = time.time() - started
                    if provider != "copy":
                        err = (out[check].double() - ref).abs().max().item()
                        if not err <= tol:
                            raise RuntimeError(f"wrong: max error {err}")
                    ms = bench_ms(lambda: fn(x, y))
                    row[provider] = round(2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e9, 1)
                    if provider.startswith("blockjit"):
                        row[provider + "_first_call_s"] = round(first, 2)
                    if provider == "blockjit_rows":  # which kernel it chose
                        row["rows_chose"] = fn.config(x, y).split(";")[0].split(",")[0] \
                            .replace("algorithm=", "")
                except Exception as e:  # a provider that fails here is reported, not fatal
                    row[provider] = ""
                    notes.append(f"{provider}: {str(e).splitlines()[0][:80]}")
                    torch.cuda.synchronize()
            row["quack"] = QUACK.get(row["dtype"], {}).get(n, "")
            best = max([v for k, v in row.items() if k.startswith("blockjit") and
                        not k.endswith("_s") and v != ""] or [0])
            row["blockjit_best"] = best
            row["best_over_copy"] = round(best / row["copy"], 3) if row.get("copy") else ""
            row["best_over_torch"] = round(best / row["torch"], 3) if row.get("torch") else ""
            row["best_over_quack"] = round(best / row["quack"], 3) if row["quack"] else ""
            row["notes"] = "; ".join(notes)
            rows.append(row)
            bj = row.get("blockjit") or 0
            print(f"{row['dtype']:9} {n:>7} {m:>6} "
                  + " ".join(f"{str(row.get(c, '')):>15}" for c in columns)
                  + f"  {bj / row['copy'] if row.get('copy') else 0:7.2f} {row['best_over_copy']!s:>9}"
                  + (f"  [{row['notes']}]" if notes else ""), flush=True)
            del x, y, ref
            torch.cuda.empty_cache()
    path = os.path.join(opts.out, "softmax_long_rows.csv")
    fields = []
    for r in rows:
        fields += [k for k in r if k not in fields]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nsummary ({name}):")
    for dtype in dtypes:
        d = str(dtype).replace("torch.", "")
        long = [r for r in rows if r["dtype"] == d and r["N"] >= 4096 and r["best_over_copy"] != ""]
        short = [r for r in rows if r["dtype"] == d and r["N"] < 4096 and r["best_over_copy"] != ""]
        if long:
            print(f"  {d}: blockjit best/copy for N >= 4096: min {min(r['best_over_copy'] for r in long):.2f} "
                  f"(N = {min(long, key=lambda r: r['best_over_copy'])['N']}), "
                  f"median {statistics.median(r['best_over_copy'] for r in long):.2f}")
        if short:
            print(f"  {d}: blockjit best/copy for N < 4096: min {min(r['best_over_copy'] for r in short):.2f}")
    print(f"wrote {path}")
    try:
        plot(rows, os.path.join(opts.out, "softmax_long_rows.png"), name)
    except ImportError as e:  # no matplotlib: the CSV is the result
        print(f"no plot: {e}")


def plot(rows, png_path, device):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    dtypes = sorted({r["dtype"] for r in rows}, reverse=True)
    fig, axes = plt.subplots(1, len(dtypes), figsize=(7 * len(dtypes), 5), squeeze=False)
    for ax, dtype in zip(axes[0], dtypes):
        rs = sorted((r for r in rows if r["dtype"] == dtype), key=lambda r: r["N"])
        for provider, style in (("blockjit", "-o"), ("blockjit_online", ":o"),
                                ("torch", "-^"), ("torch_compile", "-v"),
                                ("triton", "-s"), ("quack", "x"), ("copy", "--")):
            pts = [(r["N"], float(r[provider])) for r in rs if r.get(provider) not in (None, "")]
            if pts:
                ax.plot(*zip(*pts), style, markersize=3, label=provider)
        ax.set_xscale("log", base=2)
        ax.set_xlabel(f"N (columns), {dtype}; M = 32768, or M*N = 2^31 beyond 32768")
        ax.set_ylabel("GB/s (2*M*N*sizeof(T) / time)")
        ax.set_title(f"Softmax of long rows on {device}")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    main()
