#!/usr/bin/env python3
"""Softmax bandwidth on the GPU: blockjit vs torch.softmax vs Triton vs a copy.

    python3 bench/softmax_gpu.py --lib build/lib/libblockjit_c.so --out results/

One process, the same tensors and the same timer for every provider
(bench_ms: a fixed number of runs, each between CUDA events after an L2
flush; the median). Providers: blockjit's softmax through the C ABI's
prepared, autotuned launch (tuned on the first call of a shape, or read
from the disk cache); torch.softmax; the Triton tutorial kernel with its
fixed num_warps; the same Triton kernel autotuned over num_warps x
num_stages (Triton's space); a device copy of the same bytes.
GB/s = 2 * M * N * sizeof(T) / time. Writes softmax_gpu.csv (and
softmax_gpu.png when matplotlib is installed) to --out and prints the table
with the ratios to copy and to the best peer, and the configs chosen.
"""
import argparse
import os
import statistics
import sys
import time

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import BlockjitKernel, bench_ms, next_power_of_2, write_rows_csv  # noqa: E402,F401


@triton.jit
def triton_softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                          BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # The Triton tutorial's algorithm: persistent programs striding over rows.
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


_triton_cache = {}


def triton_softmax(x, y):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    # warmup() specializes on the arguments' divisibility by 16 (Triton's
    # vector accesses): reusing a kernel compiled for aligned rows on rows
    # that are not would fault (misaligned address).
    key = (x.dtype, block, x.stride(0) % 16 == 0, y.stride(0) % 16 == 0, n_cols % 16 == 0)
    if key not in _triton_cache:
        num_warps = 8
        props = triton.runtime.driver.active.utils.get_device_properties(x.device.index)
        num_stages = 4 if props["max_shared_mem"] > 200000 else 2
        kernel = triton_softmax_kernel.warmup(
            y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block,
            num_stages=num_stages, num_warps=num_warps, grid=(1,))
        kernel._init_handles()
        # Occupancy from registers and shared memory, as the tutorial does.
        regs = max(1, kernel.n_regs) * 32 * num_warps
        occupancy = props["max_num_regs"] // regs
        if kernel.metadata.shared:
            occupancy = min(occupancy, props["max_shared_mem"] // kernel.metadata.shared)
        programs = props["multiprocessor_count"] * max(1, occupancy)
        _triton_cache[key] = (kernel, programs)
    kernel, programs = _triton_cache[key]
    grid = min(programs, n_rows)
    kernel[(grid, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, block, 0)


@triton.autotune(
    configs=[triton.Config({"NUM_STAGES": s, "WARPS": w}, num_warps=w, num_stages=s)
             for w in (1, 2, 4, 8, 16, 32) for s in (1, 2, 3, 4)],
    key=["n_cols"],
    prune_configs_by={"early_config_prune": lambda configs, named_args, **kw: [
        c for c in configs
        if 1 <= named_args.get("BLOCK_SIZE", kw.get("BLOCK_SIZE", 1024)) //
        (32 * c.kwargs["WARPS"]) <= 128]})
@triton.jit
def triton_softmax_tuned_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                                BLOCK_SIZE: tl.constexpr, NUM_STAGES: tl.constexpr,
                                WARPS: tl.constexpr):
    # The same algorithm as triton_softmax_kernel, tuned over Triton's space
    # (num_warps x num_stages; elements per thread kept in 1..128).
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step, num_stages=NUM_STAGES):
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


_SMS = None


def triton_softmax_tuned(x, y):
    global _SMS
    if _SMS is None:
        _SMS = torch.cuda.get_device_properties(x.device).multi_processor_count
    n_rows, n_cols = x.shape
    # A persistent grid: the programs 2048 threads per SM hold.
    grid = lambda meta: (min(n_rows, _SMS * max(1, 2048 // (32 * meta["WARPS"]))),)
    triton_softmax_tuned_kernel[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                      BLOCK_SIZE=triton.next_power_of_2(n_cols))


class BlockjitSoftmax(BlockjitKernel):
    """blockjit's `kernel` (softmax, softmax_online or the softmax_rows
    operation, which times both on its first call) through the C ABI's
    prepared, autotuned launch (bench_common.BlockjitKernel: the tuner picks
    num_warps, num_stages, num_ctas, softmax_online's chunk and the grid, or
    reads them from the disk cache), called as fn(x, y)."""

    def __init__(self, lib, kernel="softmax"):
        super().__init__(lib, kernel)

    def _args(self, x, y):
        n_rows, n_cols = x.shape
        args = (y, x, x.stride(0), y.stride(0), n_rows, n_cols)
        # The softmax_rows operation chooses its kernel and their blocks.
        if self.kernel == "softmax_rows":
            return args
        # softmax's block holds a row; softmax_online's chunk is the tuner's
        # (4096 is a placeholder).
        block = next_power_of_2(n_cols) if self.kernel == "softmax" else 4096
        return args + (constexpr(block),)

    def config(self, x, y):
        return super().config(*self._args(x, y))

    def __call__(self, x, y):
        super().__call__(*self._args(x, y))


# Shape sets: (dtype, M, N).
SWEEP = ([(torch.float32, 4096, n) for n in range(256, 12544 + 1, 256)]
         + [(dt, 4096, n) for dt in (torch.float16, torch.bfloat16) for n in (1024, 4096, 12288)])
EXTRA = ([(torch.float32, m, n) for m, n in ((65536, 64), (32768, 128), (65536, 128))]  # tall-narrow
         + [(torch.float32, m, n) for m, n in ((16, 4096), (16, 16384), (8, 32768), (4, 65536))]  # short-wide
         + [(torch.float32, 4096, (1 << k) + 1) for k in (8, 10, 12, 13)]  # 2^k + 1
         + [(torch.float32, 4096, 12289), (torch.float32, 512, 32768)]
         + [(torch.bfloat16, 4096, 4097), (torch.bfloat16, 65536, 128)])
QUICK = [(torch.float32, 4096, n) for n in (256, 1024, 4096, 12288)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", default="build/lib/libblockjit_c.so")
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--set", default="sweep", choices=("sweep", "extra", "all", "quick"),
                        help="sweep: M = 4096, fp32 N = 256..12544 step 256 and fp16/bf16 "
                             "at 1024, 4096, 12288; extra: tall-narrow, short-wide and "
                             "2^k + 1 shapes; all: both")
    parser.add_argument("--n", default=None,
                        help="comma-separated fp32 row lengths (M = 4096) instead of a set")
    parser.add_argument("--reps", type=int, default=50, help="timed runs per point (fixed)")
    parser.add_argument("--no-tuned-triton", action="store_true",
                        help="leave out the autotuned Triton kernel (slow to tune)")
    opts = parser.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    lib = Blockjit(opts.lib)
    blockjit_softmax = BlockjitSoftmax(lib)
    torch.manual_seed(0)
    shapes = {"sweep": SWEEP, "extra": EXTRA, "all": SWEEP + EXTRA, "quick": QUICK}[opts.set]
    if opts.n:
        shapes = [(torch.float32, 4096, int(n)) for n in opts.n.split(",")]
    providers = {
        "blockjit": blockjit_softmax,
        "torch": lambda x, y: torch.softmax(x, dim=-1),
        "triton": triton_softmax,
        "triton_tuned": triton_softmax_tuned,
        "copy": lambda x, y: y.copy_(x),
    }
    if opts.no_tuned_triton:
        del providers["triton_tuned"]
    peers = [p for p in ("torch", "triton", "triton_tuned") if p in providers]
    rows = []
    name = torch.cuda.get_device_name()
    print(f"device: {name}; GB/s = 2*M*N*sizeof(T)/time (median of {opts.reps} runs, "
          "CUDA events, L2 flushed before each)")
    print(f"{'dtype':9} {'M':>6} {'N':>6} " + " ".join(f"{p:>12}" for p in providers)
          + f"  {'bj/copy':>7} {'bj/best':>7}  configs", flush=True)
    for dtype, m, n in shapes:
        x = torch.randn(m, n, device="cuda", dtype=dtype)
        y = torch.empty_like(x)
        # Correctness first (and tuning, for the tuned providers): each
        # provider against torch in float64.
        ref = torch.softmax(x.double(), dim=-1)
        tol = 1e-6 if dtype == torch.float32 else 1e-2
        gbps, notes = {}, []
        for provider, fn in providers.items():
            try:
                y.fill_(float("nan"))
                started = time.time()
                out = fn(x, y)
                out = y if out is None else out
                torch.cuda.synchronize()
                first = time.time() - started
                if provider != "copy":
                    err = (out.double() - ref).abs().max().item()
                    if not err <= tol:
                        raise RuntimeError(f"wrong: max error {err}")
                ms = bench_ms(lambda: fn(x, y), reps=opts.reps)
                gbps[provider] = 2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e9
                if provider == "blockjit":
                    blockjit_first = first
            except Exception as e:  # a provider that fails here is reported, not fatal
                notes.append(f"{provider}: {str(e).splitlines()[0][:100]}")
                torch.cuda.synchronize()
        if "blockjit" not in gbps:
            raise SystemExit(f"blockjit failed at {dtype} {m}x{n}: {notes}")
        best_peer = max(gbps.get(p, 0) for p in peers)
        row = {"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n,
               **{p: round(gbps.get(p, float("nan")), 1) for p in providers},
               "blockjit_over_copy": round(gbps["blockjit"] / gbps["copy"], 3),
               "blockjit_over_torch": round(gbps["blockjit"] / gbps["torch"], 3),
               "blockjit_over_triton": round(gbps["blockjit"] / gbps["triton"], 3)
               if "triton" in gbps else "",
               "blockjit_over_triton_tuned": round(gbps["blockjit"] / gbps["triton_tuned"], 3)
               if "triton_tuned" in gbps else "",
               "blockjit_over_best_peer": round(gbps["blockjit"] / best_peer, 3),
               "blockjit_config": blockjit_softmax.config(x, y),
               "blockjit_first_call_s": round(blockjit_first, 2),
               "triton_tuned_config": str(triton_softmax_tuned_kernel.best_config)
               if "triton_tuned" in gbps else "",
               "notes": "; ".join(notes)}
        rows.append(row)
        print(f"{row['dtype']:9} {m:>6} {n:>6} "
              + " ".join(f"{gbps.get(p, float('nan')):>12.0f}" for p in providers)
              + f"  {row['blockjit_over_copy']:>7.3f} {row['blockjit_over_best_peer']:>7.3f}"
              + f"  bj {row['blockjit_config']} first {blockjit_first:.2f}s"
              + (f"  [{row['notes']}]" if notes else ""), flush=True)
        del x, y, ref
    path = os.path.join(opts.out, "softmax_gpu.csv")
    write_rows_csv(path, rows)
    fp32 = [r for r in rows if r["dtype"] == "float32" and r["M"] == 4096]
    big = [r for r in fp32 if r["N"] >= 1024]
    wins = sum(r["blockjit_over_best_peer"] >= 1.0 for r in rows)
    within = sum(r["blockjit_over_best_peer"] >= 0.98 for r in rows)
    print(f"\nsummary ({name}):")
    if big:
        print(f"  blockjit/copy, fp32 M=4096 N>=1024: min {min(r['blockjit_over_copy'] for r in big):.3f}, "
              f"median {statistics.median(r['blockjit_over_copy'] for r in big):.3f}")
    print(f"  blockjit >= max({', '.join(peers)}) at {wins}/{len(rows)} points; "
          f"within 2 % at {within}/{len(rows)}; min ratio "
          f"{min(r['blockjit_over_best_peer'] for r in rows):.3f} "
          f"({min(rows, key=lambda r: r['blockjit_over_best_peer'])['dtype']} "
          f"{min(rows, key=lambda r: r['blockjit_over_best_peer'])['M']}x"
          f"{min(rows, key=lambda r: r['blockjit_over_best_peer'])['N']})")
    if "triton_tuned" in providers:
        tt = [r["blockjit_over_triton_tuned"] for r in rows if r["blockjit_over_triton_tuned"] != ""]
        print(f"  blockjit/triton_tuned: min {min(tt):.3f}, median {statistics.median(tt):.3f}")
    print(f"wrote {path}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot (bench/plot_softmax.py draws one from the CSV)")
        return
    from plot_softmax import plot
    plot(path, os.path.join(opts.out, "softmax_gpu.png"), name)


if __name__ == "__main__":
    main()
