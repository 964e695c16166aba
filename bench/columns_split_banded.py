#!/usr/bin/env python3
"""softmax over dim 0 at M = 32768 band by band: the split's three launches
(softmax_columns_stats, softmax_columns_combine, softmax_columns_normalize,
each tuned) over the whole matrix (B=all), then over bands of B columns in
turn (stats, combine and normalize of one band, then the next), so that
normalize re-reads a band stats has just read while L2 may still hold it.
An experiment on whether L2 reuse outweighs the extra launches
(docs/softmax_columns_split_h200_banded.txt).

    python3 bench/columns_split_banded.py --lib build/lib/libblockjit_c.so \
        --dtypes fp32,bf16 --n 781,4096,12288 --bands 256,512,1024,2048

GB/s of 2*M*N*s (bench_common.bench_ms with a head start long enough for
the host to queue every launch), each checked against torch's float64
softmax(x, 0), beside a device copy of the same bytes.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_common  # noqa: E402
from blockjit_ctypes import Blockjit  # noqa: E402
from bench_common import BlockjitKernel, bench_ms, copy_gbps  # noqa: E402
from softmax_columns_split import case, matches, rows_per_split, split_args  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def band_launches(kernels, x, y, c0, width):
    """Bound launches of stats, combine and normalize on columns c0 ..
    c0 + width (views of x and y), and their argument lists, which hold the
    buffers the launches use."""
    xb, yb = x[:, c0:c0 + width], y[:, c0:c0 + width]
    arg_lists = split_args(xb, yb, rows_per_split(x.shape[0], width))
    return ([kernels[k].bind(*args) for k, args in
             zip(("stats", "combine", "normalize"), arg_lists)], arg_lists)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--dtypes", default="fp32,bf16")
    p.add_argument("--n", default="781,4096,12288")
    p.add_argument("--bands", default="256,512,1024,2048")
    p.add_argument("--reps", type=int, default=20)
    a = p.parse_args()
    # Up to 144 launches a run from Python: give the host 6 ms to queue them.
    bench_common._HEAD_START_CYCLES = 12_000_000
    lib = Blockjit(a.lib)
    kernels = {k: BlockjitKernel(lib, "softmax_columns_" + k)
               for k in ("stats", "combine", "normalize")}
    m = 32768
    for dname in a.dtypes.split(","):
        tol = (1e-5, 1e-4) if dname == "fp32" else (1e-2, 2e-2)
        for n in map(int, a.n.split(",")):
            x, y, ref, nbytes = case(m, n, DTYPES[dname])
            copy = copy_gbps(nbytes, a.reps)
            out = [f"{dname} {m}x{n} copy {copy:.0f}"]
            for band in [n] + [int(b) for b in a.bands.split(",") if int(b) < n]:
                runs, keep = [], []  # keep: the launches' buffers, alive
                for c0 in range(0, n, band):
                    fns, arg_lists = band_launches(kernels, x, y, c0, min(band, n - c0))
                    runs += fns
                    keep.append(arg_lists)

                def all_bands():
                    for run in runs:
                        run()
                y.fill_(float("nan"))
                all_bands()
                torch.cuda.synchronize()
                ok = matches(y, ref, tol)
                gbps = nbytes / bench_ms(all_bands, a.reps) / 1e6
                out.append(f"B={'all' if band == n else band}: {gbps:.0f} "
                           f"({gbps / copy:.3f} x copy, {len(runs)} launches"
                           f"{'' if ok else ', WRONG'})")
            print(" | ".join(out), flush=True)


if __name__ == "__main__":
    main()
