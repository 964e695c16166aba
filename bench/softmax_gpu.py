#!/usr/bin/env python3
"""Softmax bandwidth on the GPU: blockjit vs torch.softmax vs Triton vs a copy.

    python3 bench/softmax_gpu.py --lib build/lib/libblockjit_c.so --out results/

One process, the same tensors and the same timer (triton.testing.do_bench:
CUDA events, L2 flushed before every run, median) for every provider.
GB/s = 2 * M * N * sizeof(T) / time. Writes softmax_gpu.csv (and
softmax_gpu.png when matplotlib is installed) to --out and prints the table
with the ratios blockjit/copy, blockjit/torch and blockjit/Triton.
"""
import argparse
import csv
import os
import statistics
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402


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
    key = (x.dtype, block)
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


def blockjit_config(block):
    """(num_warps, num_stages), as examples::softmaxNumWarps/NumStages in C++
    (measured on the H100 with bench/tune_softmax_warps.py)."""
    warps = 2 if block <= 512 else 4 if block == 1024 else min(16, block // 2048)
    return warps, 1 if block == 512 else 2


class BlockjitSoftmax:
    def __init__(self, lib):
        self.lib = lib
        self.grids = {}

    def __call__(self, x, y):
        n_rows, n_cols = x.shape
        block = triton.next_power_of_2(n_cols)
        args = [y, x, x.stride(0), y.stride(0), n_rows, n_cols, constexpr(block)]
        warps, stages = blockjit_config(block)
        key = (x.dtype, block, n_rows)
        if key not in self.grids:
            info = self.lib.warmup("softmax", args, num_warps=warps,
                                   num_stages=stages, target="cuda")
            self.grids[key] = min(n_rows, info.processors * info.max_programs_per_processor)
        self.lib.launch("softmax", args, grid=(self.grids[key],), num_warps=warps,
                        num_stages=stages, target="cuda",
                        stream=torch.cuda.current_stream().cuda_stream)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", default="build/lib/libblockjit_c.so")
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--quick", action="store_true", help="a few shapes only")
    parser.add_argument("--n", default=None,
                        help="comma-separated fp32 row lengths to time instead "
                             "of the full sweep")
    parser.add_argument("--lib-before", default=None,
                        help="another build's libblockjit_c.so, timed as the "
                             "provider 'before' in the same run (before/after "
                             "comparisons)")
    opts = parser.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    lib = Blockjit(opts.lib)
    blockjit_softmax = BlockjitSoftmax(lib)
    before_softmax = BlockjitSoftmax(Blockjit(opts.lib_before)) if opts.lib_before else None
    torch.manual_seed(0)
    M = 4096
    shapes = [(torch.float32, n) for n in range(256, 12544 + 1, 256)]
    shapes += [(dt, n) for dt in (torch.float16, torch.bfloat16) for n in (1024, 4096, 12288)]
    if opts.quick:
        shapes = [(torch.float32, n) for n in (256, 1024, 4096, 12288)]
    if opts.n:
        shapes = [(torch.float32, int(n)) for n in opts.n.split(",")]
    providers = {
        "blockjit": blockjit_softmax,
        "torch": lambda x, y: torch.softmax(x, dim=-1),
        "triton": triton_softmax,
        "copy": lambda x, y: y.copy_(x),
    }
    if before_softmax:
        providers["before"] = before_softmax
    rows = []
    name = torch.cuda.get_device_name()
    print(f"device: {name}; M = {M}; GB/s = 2*M*N*sizeof(T)/time (do_bench median)")
    header = f"{'dtype':9} {'N':>6} {'blockjit':>9} {'torch':>9} {'triton':>9} {'copy':>9}  {'bj/copy':>7} {'bj/torch':>8} {'bj/triton':>9}"
    print(header)
    for dtype, n in shapes:
        x = torch.randn(M, n, device="cuda", dtype=dtype)
        y = torch.empty_like(x)
        # Correctness first: every provider against torch in float64.
        ref = torch.softmax(x.double(), dim=-1)
        blockjit_softmax(x, y)
        torch.cuda.synchronize()
        err = (y.double() - ref).abs().max().item()
        tol = 1e-6 if dtype == torch.float32 else 1e-2
        if not err <= tol:
            raise SystemExit(f"blockjit wrong at {dtype} N={n}: max error {err}")
        if before_softmax:
            before_softmax(x, y)
            torch.cuda.synchronize()
            before_err = (y.double() - ref).abs().max().item()
            if not before_err <= tol:
                raise SystemExit(f"'before' wrong at {dtype} N={n}: max error {before_err}")
        gbps = {}
        for provider, fn in providers.items():
            ms = triton.testing.do_bench(lambda: fn(x, y), warmup=25, rep=200,
                                         return_mode="median")
            gbps[provider] = 2 * x.numel() * x.element_size() / (ms * 1e-3) / 1e9
        row = {"dtype": str(dtype).replace("torch.", ""), "M": M, "N": n,
               **{k: round(v, 1) for k, v in gbps.items()},
               "blockjit_over_copy": round(gbps["blockjit"] / gbps["copy"], 3),
               "blockjit_over_torch": round(gbps["blockjit"] / gbps["torch"], 3),
               "blockjit_over_triton": round(gbps["blockjit"] / gbps["triton"], 3),
               "max_error": err}
        if before_softmax:
            row["blockjit_over_before"] = round(gbps["blockjit"] / gbps["before"], 3)
        rows.append(row)
        print(f"{row['dtype']:9} {n:>6} {gbps['blockjit']:>9.0f} {gbps['torch']:>9.0f} "
              f"{gbps['triton']:>9.0f} {gbps['copy']:>9.0f}  {row['blockjit_over_copy']:>7.2f} "
              f"{row['blockjit_over_torch']:>8.2f} {row['blockjit_over_triton']:>9.2f}"
              + (f"  before {gbps['before']:>6.0f} after/before {row['blockjit_over_before']:.3f}"
                 if before_softmax else ""), flush=True)
    path = os.path.join(opts.out, "softmax_gpu.csv")
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    fp32 = [r for r in rows if r["dtype"] == "float32"]
    big = [r for r in fp32 if r["N"] >= 1024]
    small = [r for r in fp32 if r["N"] < 1024]
    wins = sum(r["blockjit"] >= max(r["torch"], r["triton"]) for r in rows)
    print(f"\nsummary ({name}):")
    print(f"  blockjit/copy, fp32 N>=1024: min {min(r['blockjit_over_copy'] for r in big):.2f}, "
          f"median {statistics.median(r['blockjit_over_copy'] for r in big):.2f}")
    if small:
        print(f"  blockjit/copy, fp32 N<1024:  min {min(r['blockjit_over_copy'] for r in small):.2f}")
    print(f"  blockjit >= max(torch, triton) at {wins}/{len(rows)} points")
    print(f"  median GB/s fp32: blockjit {statistics.median(r['blockjit'] for r in fp32):.0f}, "
          f"torch {statistics.median(r['torch'] for r in fp32):.0f}, "
          f"triton {statistics.median(r['triton'] for r in fp32):.0f}, "
          f"copy {statistics.median(r['copy'] for r in fp32):.0f}")
    if before_softmax:
        ratios = [r["blockjit_over_before"] for r in rows]
        print(f"  after/before: min {min(ratios):.3f}, median {statistics.median(ratios):.3f}, "
              f"max {max(ratios):.3f}; points below 0.98: "
              f"{sum(x < 0.98 for x in ratios)}/{len(ratios)}")
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
