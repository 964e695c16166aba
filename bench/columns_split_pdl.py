#!/usr/bin/env python3
"""What programmatic dependent launch (PDL) would give softmax over dim 0's
split: a Triton copy of its three launches (stats, combine, normalize; the
algorithm of examples/kernels/SoftmaxColumnsSplit.cpp on 2-D tiles), timed
launched plainly and with PDL (combine and normalize launched with
launch_pdl=True; each launch lets its dependent start at once
(griddepcontrol.launch_dependents) and waits (griddepcontrol.wait) before
reading what the launch before it wrote; normalize loads its x tile before
waiting). An experiment: blockjit has no such operation
(docs/softmax_columns_split_h200_where_time_goes.txt).

    SHAPES=32768x781,... DTYPES=fp32,bf16 python3 bench/columns_split_pdl.py

Prints GB/s of 2*M*N*s for both, each checked against torch's float64
softmax(x, 0), and a device copy of the same bytes.
"""
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms, copy_gbps, next_power_of_2  # noqa: E402
from softmax_columns_split import case, matches  # noqa: E402


@triton.jit
def stats_kernel(stats_ptr, x_ptr, stride, n_rows, n_cols, rows_per_split,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GDC: tl.constexpr):
    if GDC:
        tl.extra.cuda.gdc_launch_dependents()
    strip, split = tl.program_id(0), tl.program_id(1)
    n_splits = tl.num_programs(1)
    cols = strip * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    row_start = split * rows_per_split
    row_end = tl.minimum(row_start + rows_per_split, n_rows)
    m = tl.full([BLOCK_N], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_N], tl.float32)
    for start in range(row_start, row_end, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :],
                    mask=(rows[:, None] < row_end) & col_mask[None, :],
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, 0))
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift[None, :]), 0)
        m = m_new
    tl.store(stats_ptr + split * n_cols + cols, m, mask=col_mask)
    tl.store(stats_ptr + (n_splits + split) * n_cols + cols, s, mask=col_mask)


@triton.jit
def combine_kernel(column_stats_ptr, stats_ptr, n_splits, n_cols,
                   BLOCK_S: tl.constexpr, BLOCK_N: tl.constexpr, GDC: tl.constexpr):
    if GDC:
        tl.extra.cuda.gdc_launch_dependents()
        tl.extra.cuda.gdc_wait()
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    m = tl.full([BLOCK_S, BLOCK_N], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_S, BLOCK_N], tl.float32)
    for start in range(0, n_splits, BLOCK_S):
        splits = start + tl.arange(0, BLOCK_S)
        mask = (splits[:, None] < n_splits) & col_mask[None, :]
        m2 = tl.load(stats_ptr + splits[:, None] * n_cols + cols[None, :],
                     mask=mask, other=float("-inf"))
        s2 = tl.load(stats_ptr + (n_splits + splits[:, None]) * n_cols + cols[None, :],
                     mask=mask, other=0.0)
        m_new = tl.maximum(m, m2)
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + s2 * tl.exp(m2 - shift)
        m = m_new
    col_max = tl.max(m, 0)
    shift = tl.where(col_max == float("-inf"), 0.0, col_max)
    col_sum = tl.sum(s * tl.exp(m - shift[None, :]), 0)
    tl.store(column_stats_ptr + cols, col_max, mask=col_mask)
    tl.store(column_stats_ptr + n_cols + cols, col_sum, mask=col_mask)


@triton.jit
def normalize_kernel(y_ptr, x_ptr, column_stats_ptr, stride, n_rows, n_cols,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GDC: tl.constexpr):
    rows = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M + tl.arange(0, BLOCK_M)
    for col_start in range(0, n_cols, BLOCK_N):
        cols = col_start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < n_rows) & (cols < n_cols)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask,
                    other=0.0).to(tl.float32)
        if GDC:
            tl.extra.cuda.gdc_wait()
        col_max = tl.load(column_stats_ptr + cols, mask=cols < n_cols, other=0.0)
        col_scale = 1.0 / tl.load(column_stats_ptr + n_cols + cols,
                                  mask=cols < n_cols, other=1.0)
        y = tl.exp(x - col_max[None, :]) * col_scale[None, :]
        tl.store(y_ptr + rows[:, None] * stride + cols[None, :],
                 y.to(y_ptr.dtype.element_ty), mask=mask)


def split(x, y, pdl):
    m, n = x.shape
    stats_n = 256
    rows_per_split = 64
    splits = triton.cdiv(m, rows_per_split)
    stats = torch.empty(2 * splits * n, device="cuda", dtype=torch.float32)
    column_stats = torch.empty(2 * n, device="cuda", dtype=torch.float32)
    norm_n = min(1024, next_power_of_2(n))

    def run():
        stats_kernel[(triton.cdiv(n, stats_n), splits)](
            stats, x, x.stride(0), m, n, rows_per_split, BLOCK_M=16,
            BLOCK_N=stats_n, GDC=pdl, num_warps=8)
        combine_kernel[(triton.cdiv(n, 32),)](
            column_stats, stats, splits, n, BLOCK_S=64, BLOCK_N=32, GDC=pdl,
            num_warps=4, launch_pdl=pdl)
        normalize_kernel[(triton.cdiv(m, 4),)](
            y, x, column_stats, x.stride(0), m, n, BLOCK_M=4, BLOCK_N=norm_n,
            GDC=pdl, num_warps=8, launch_pdl=pdl)
    return run


def main():
    shapes = os.environ.get("SHAPES", "32768x781,32768x1024,32768x4096")
    dtypes = os.environ.get("DTYPES", "fp32,bf16")
    for dname in dtypes.split(","):
        dt = {"fp32": torch.float32, "bf16": torch.bfloat16}[dname]
        for shape in shapes.split(","):
            m, n = map(int, shape.split("x"))
            x, y, ref, nbytes = case(m, n, dt)
            copy = copy_gbps(nbytes)
            out = [f"{dname} {m}x{n} copy={copy:.0f}"]
            for pdl in (False, True):
                run = split(x, y, pdl)
                y.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
                ok = "ok" if matches(y, ref, (1e-2, 2e-2)) else "BAD"
                gbps = nbytes / bench_ms(run, 30) / 1e6
                out.append(f"{'pdl' if pdl else 'plain'}={gbps:.0f} "
                           f"({gbps / copy:.3f}x) {ok}")
            print(" | ".join(out), flush=True)


if __name__ == "__main__":
    main()
