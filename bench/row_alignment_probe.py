#!/usr/bin/env python3
"""How much odd row strides cost a row kernel: the same M x N softmax on a
contiguous matrix (row stride N, rows only element-aligned when N is odd)
and on a padded one (row stride rounded up to 16 bytes, so every row starts
16-byte aligned and loads can be vectors), blockjit tuned, torch.compile
and a copy of 2*M*N*s bytes, same timer (bench_common.bench_ms).

    python3 bench/row_alignment_probe.py --lib build/lib/libblockjit_c.so \
        --shapes 32768x781 --dtypes fp32,bf16 --kernels softmax,log_softmax
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from bench_common import BlockjitKernel, bench_ms, copy_gbps, next_power_of_2  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
EAGER = {"softmax": lambda x: torch.softmax(x, -1),
         "log_softmax": lambda x: torch.log_softmax(x, -1)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default="build/lib/libblockjit_c.so")
    p.add_argument("--shapes", default="32768x781")
    p.add_argument("--dtypes", default="fp32,bf16")
    p.add_argument("--kernels", default="softmax")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--no-compile", action="store_true")
    p.add_argument("--strides", default="",
                   help="more row strides to time (elements), e.g. 782,792")
    a = p.parse_args()
    lib = Blockjit(a.lib)
    print("kernel,dtype,M,N,stride,blockjit_gbps,compile_gbps,copy_gbps,"
          "blockjit_over_copy,max_err,config", flush=True)
    for shape in a.shapes.split(","):
        m, n = map(int, shape.split("x"))
        for dname in a.dtypes.split(","):
            dt = DTYPES[dname]
            s = torch.tensor([], dtype=dt).element_size()
            nbytes = 2 * m * n * s
            copy = copy_gbps(nbytes, a.reps)
            padded = -(-n * s // 16) * 16 // s
            for kname in a.kernels.split(","):
                kern = BlockjitKernel(lib, kname)
                extra = {int(v) for v in a.strides.split(",") if v}
                for stride in sorted({n, padded} | extra):
                    torch.manual_seed(0)
                    xs = torch.randn(m, stride, device="cuda", dtype=dt)
                    ys = torch.empty_like(xs)
                    x, y = xs[:, :n], ys[:, :n]
                    args = [y, x, stride, stride, m, n,
                            constexpr(next_power_of_2(n))]
                    kern(*args)
                    ref = EAGER[kname](x.double())
                    err = (y.double() - ref).abs().max().item()
                    fn = kern.bind(*args)
                    gbps = nbytes / bench_ms(fn, a.reps) / 1e6
                    cgbps = float("nan")
                    if not a.no_compile and stride == n:
                        torch._dynamo.reset()
                        f = torch.compile(EAGER[kname])
                        f(x)
                        cgbps = nbytes / bench_ms(lambda: f(x), a.reps) / 1e6
                    cfg = kern.config(*args).replace(",", ";")
                    print(f"{kname},{dname},{m},{n},{stride},{gbps:.1f},"
                          f"{cgbps:.1f},{copy:.1f},{gbps / copy:.3f},"
                          f"{err:.2e},{cfg}", flush=True)


if __name__ == "__main__":
    main()
