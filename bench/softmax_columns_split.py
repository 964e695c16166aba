#!/usr/bin/env python3
"""softmax over dim 0 in three launches (softmax_columns_stats,
softmax_columns_combine, softmax_columns_normalize) against
softmax_columns, torch.softmax(x, 0), torch.compile of it and a copy of the
same bytes, one process, one timer.

    python3 bench/softmax_columns_split.py --lib build/lib/libblockjit_c.so \
        --out results/ [--shapes 32768x781,...] [--dtypes fp32,bf16]
        [--providers split,columns,torch,compile,copy] [--rows-per-split R]

For each shape (default M in {4096, 32768} x N in {781, 1024, 4096,
12288}) and dtype: every provider's output is checked against torch's
float64 softmax(x, 0) (fp32 abs 1e-5 * max|ref| + rel 1e-4, bf16 abs 1e-2 *
max|ref| + rel 2e-2), then timed with bench_common.bench_ms (L2 flushed
before each run, median of a fixed count). GB/s = 2*M*N*s / time (the
minimal traffic; the split kernels read x twice and write once).

  split    softmax_columns_stats, softmax_columns_combine and
           softmax_columns_normalize, each tuned by its autotuner through
           the C ABI's prepared launch, on row blocks of
           examples::softmaxColumnsSplitRows(M, N) rows (mirrored below);
           timed as the three launches. --rows-per-split R replaces the
           library's row blocks (an experiment: each R is tuned apart).
  columns  softmax_columns, tuned (clusters, whole columns or chunks).
  torch    torch.softmax(x, 0).
  compile  torch.compile of it (default mode, dynamo reset per case).
  copy     a device copy of M*N*s bytes (a flat uint8 tensor).

faster_over_torch_best is the faster of split and columns (what `softmax
--kernel softmax_columns` times and runs) over the faster of torch and
compile. Writes softmax_columns_split.csv to --out (rows as they finish) and
prints each row.
"""
import argparse
import csv
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import BlockjitKernel, bench_ms, copy_gbps, next_power_of_2  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
PROVIDERS = ["split", "columns", "torch", "compile", "copy"]


def rows_per_split(m, n):
    """examples::softmaxColumnsSplitRows (examples/kernels/SoftmaxColumnsSplit.cpp):
    at least 512 programs over strips of 1024 columns, a power of two >= 32
    (rounded down)."""
    strips = -(-max(n, 1) // 1024)
    splits = -(-512 // strips)
    per = max(1, max(m, 1) // splits)
    return max(32, 1 << (per.bit_length() - 1))


def case(m, n, dt):
    """softmax over dim 0 of an M x N matrix: x (seeded, so that every
    script times the same values), an output, the float64 reference and
    the minimal traffic in bytes."""
    torch.manual_seed(0)
    x = torch.randn(m, n, device="cuda", dtype=torch.float32).to(dt)
    return (x, torch.empty_like(x), torch.softmax(x.double(), 0),
            2 * m * n * x.element_size())


def matches(y, ref, tol):
    """Whether y is within tol = (abs as a fraction of max|ref|, rel) of
    ref, torch's float64 softmax(x, 0)."""
    err = (y.double() - ref).abs() - tol[1] * ref.abs()
    return err.max().item() <= tol[0] * ref.abs().max().item()


def split_args(x, y, rows):
    """The argument lists of the split's three launches (stats, combine,
    normalize) for softmax over dim 0 of x into y (M x N, row-major; views
    of wider matrices too) on row blocks of `rows` rows. The constexprs are
    defaults: each launch's tuner picks its own. The lists hold the
    statistics buffers they need."""
    m, n = x.shape
    splits = -(-m // rows)
    stats = torch.empty(2 * splits * n, device=x.device, dtype=torch.float32)
    column_stats = torch.empty(2 * n, device=x.device, dtype=torch.float32)
    s_args = [stats, x, x.stride(0), m, n, rows, constexpr(4), constexpr(1024)]
    c_args = [column_stats, stats, splits, n,
              constexpr(min(64, next_power_of_2(splits))), constexpr(64)]
    n_args = [y, x, column_stats, x.stride(0), y.stride(0), m, n,
              constexpr(4), constexpr(1024)]
    return s_args, c_args, n_args


def _columns(x):
    return torch.softmax(x, 0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--out", default=".")
    p.add_argument("--shapes", default="4096x781,4096x1024,4096x4096,4096x12288,"
                   "32768x781,32768x1024,32768x4096,32768x12288")
    p.add_argument("--dtypes", default="fp32,bf16")
    p.add_argument("--providers", default=",".join(PROVIDERS))
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--rows-per-split", type=int, default=0,
                   help="stats' row blocks (default: the library's rule)")
    a = p.parse_args()
    providers = a.providers.split(",")
    lib = Blockjit(a.lib)
    stats_k = BlockjitKernel(lib, "softmax_columns_stats")
    combine_k = BlockjitKernel(lib, "softmax_columns_combine")
    normalize_k = BlockjitKernel(lib, "softmax_columns_normalize")
    columns_k = BlockjitKernel(lib, "softmax_columns")
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "softmax_columns_split.csv")
    fields = ["device", "dtype", "M", "N", "bytes"] + \
        [f"{q}_gbps" for q in PROVIDERS] + \
        ["split_over_copy", "split_over_columns", "split_over_compile",
         "split_over_best_peer", "faster_over_torch_best", "split_stats_ms", "split_combine_ms",
         "split_normalize_ms",
         "split_config", "columns_config", "check"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for dname in a.dtypes.split(","):
            dt = DTYPES[dname]
            tol = (1e-5, 1e-4) if dt == torch.float32 else (1e-2, 2e-2)
            for shape in a.shapes.split(","):
                m, n = map(int, shape.split("x"))
                x, y, ref, nbytes = case(m, n, dt)
                row = {"device": torch.cuda.get_device_name(), "dtype": dname,
                       "M": m, "N": n, "bytes": nbytes}
                bad = []

                def check(name):
                    if not matches(y, ref, tol):
                        bad.append(name)

                def timed(name, fn):
                    y.fill_(float("nan"))
                    fn()
                    torch.cuda.synchronize()
                    check(name)
                    ms = bench_ms(fn, a.reps)
                    row[f"{name}_gbps"] = round(nbytes / ms / 1e6, 1)
                    return ms

                if "split" in providers:
                    s_args, c_args, n_args = split_args(
                        x, y, a.rows_per_split or rows_per_split(m, n))
                    run_s = stats_k.bind(*s_args)
                    run_c = combine_k.bind(*c_args)
                    run_n = normalize_k.bind(*n_args)

                    def three():
                        run_s()
                        run_c()
                        run_n()
                    timed("split", three)
                    row["split_stats_ms"] = round(bench_ms(run_s, a.reps), 5)
                    row["split_combine_ms"] = round(bench_ms(run_c, a.reps), 5)
                    row["split_normalize_ms"] = round(bench_ms(run_n, a.reps), 5)
                    row["split_config"] = " | ".join(
                        [stats_k.config(*s_args), combine_k.config(*c_args),
                         normalize_k.config(*n_args)])
                if "columns" in providers:
                    c_args = [y, x, x.stride(0), y.stride(0), m, n,
                              constexpr(next_power_of_2(m)), constexpr(8),
                              constexpr(1)]
                    timed("columns", columns_k.bind(*c_args))
                    row["columns_config"] = columns_k.config(*c_args)
                if "torch" in providers:
                    timed("torch", lambda: y.copy_(torch.softmax(x, 0)))
                    # The copy into y is not torch's: time the op alone.
                    row["torch_gbps"] = round(
                        nbytes / bench_ms(lambda: torch.softmax(x, 0), a.reps) / 1e6, 1)
                if "compile" in providers:
                    torch._dynamo.reset()
                    compiled = torch.compile(_columns)
                    timed("compile", lambda: y.copy_(compiled(x)))
                    row["compile_gbps"] = round(
                        nbytes / bench_ms(lambda: compiled(x), a.reps) / 1e6, 1)
                if "copy" in providers:
                    row["copy_gbps"] = round(copy_gbps(nbytes, a.reps), 1)
                split = row.get("split_gbps")
                if split:
                    for key, peer in (("split_over_copy", "copy_gbps"),
                                      ("split_over_columns", "columns_gbps"),
                                      ("split_over_compile", "compile_gbps")):
                        if row.get(peer):
                            row[key] = round(split / row[peer], 3)
                    peers = [row[k] for k in ("columns_gbps", "torch_gbps",
                                              "compile_gbps") if row.get(k)]
                    if peers:
                        row["split_over_best_peer"] = round(split / max(peers), 3)
                # What `softmax --kernel softmax_columns` runs (the faster
                # of the two algorithms) over torch's best.
                ours = [row[k] for k in ("split_gbps", "columns_gbps")
                        if row.get(k)]
                theirs = [row[k] for k in ("torch_gbps", "compile_gbps")
                          if row.get(k)]
                if ours and theirs:
                    row["faster_over_torch_best"] = round(
                        max(ours) / max(theirs), 3)
                row["check"] = "ok" if not bad else "MISMATCH:" + "+".join(bad)
                w.writerow(row)
                f.flush()
                print(", ".join(f"{k}={v}" for k, v in row.items()
                                if k not in ("device", "bytes")), flush=True)


if __name__ == "__main__":
    main()
