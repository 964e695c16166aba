#!/usr/bin/env python3
"""L2 eviction hints on a streaming row kernel, in Triton (no blockjit):
softmax and softmax's backward with one row a program, the loads plain,
`evict_first` or `evict_last`, the store plain or `evict_first`, beside a
device copy and torch.compile of the same math, timed after the benchmark
protocol's L2 write flush and (--read-flush) after a 256 MB read as well.

    python3 bench/eviction_hints_triton.py --kernels softmax,backward \
        --dtypes fp32,bf16 --shapes 32768x4096,4096x4096

GB/s of the minimal traffic (2*M*N*s forward, 3*M*N*s backward). Column
names: w<warps>L<load hint: 0 plain, 1 evict_first, 2 evict_last>S<store
hint: 0 plain, 1 evict_first>. docs/eviction_hints_h200.txt has what it
measured and why blockjit does not set such hints on its own.
"""
import argparse
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms, copy_gbps  # noqa: E402

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


@triton.jit
def _load(ptrs, mask, other, EL: tl.constexpr):
    if EL == 1:
        return tl.load(ptrs, mask=mask, other=other, eviction_policy="evict_first")
    if EL == 2:
        return tl.load(ptrs, mask=mask, other=other, eviction_policy="evict_last")
    return tl.load(ptrs, mask=mask, other=other)


@triton.jit
def _store(ptrs, value, mask, ES: tl.constexpr):
    if ES == 1:
        tl.store(ptrs, value, mask=mask, eviction_policy="evict_first")
    else:
        tl.store(ptrs, value, mask=mask)


@triton.jit
def softmax_kernel(out, x, stride, n, BLOCK: tl.constexpr, EL: tl.constexpr,
                   ES: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    a = _load(x + row * stride + cols, mask, -float("inf"), EL).to(tl.float32)
    e = tl.exp(a - tl.max(a, 0))
    _store(out + row * stride + cols, (e / tl.sum(e, 0)).to(out.dtype.element_ty),
           mask, ES)


@triton.jit
def backward_kernel(dx, y, dy, stride, n, BLOCK: tl.constexpr, EL: tl.constexpr,
                    ES: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    a = _load(y + row * stride + cols, mask, 0.0, EL).to(tl.float32)
    b = _load(dy + row * stride + cols, mask, 0.0, EL).to(tl.float32)
    s = tl.sum(a * b, 0)
    _store(dx + row * stride + cols, (a * (b - s)).to(dx.dtype.element_ty), mask, ES)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", default="softmax,backward")
    p.add_argument("--dtypes", default="fp32,bf16")
    p.add_argument("--shapes", default="4096x4096,32768x1024,32768x4096,32768x12288")
    p.add_argument("--warps", default="2,4,8,16")
    p.add_argument("--read-flush", action="store_true",
                   help="also time after a 256 MB read (clean L2 lines)")
    p.add_argument("--reset-persisting", action="store_true",
                   help="also time with cuCtxResetPersistingL2Cache before the "
                        "flush (P, the protocol's bench_ms): lines read with "
                        "evict_last survive a flush made of plain writes")
    p.add_argument("--compile", action="store_true", help="also time torch.compile")
    p.add_argument("--reps", type=int, default=40)
    a = p.parse_args()
    readbuf = torch.ones(64 << 20, device="cuda") if a.read_flush else None
    # (name, run before each flush, reset persisting lines): W and R leave
    # evict_last lines in L2, as the protocol did before bench_ms reset them.
    flushes = [("W", None, False)] + (
        [("R", lambda: readbuf.sum(), False)] if a.read_flush else [])
    if a.reset_persisting:
        flushes.append(("P", None, True))
    for kernel in a.kernels.split(","):
        for dname in a.dtypes.split(","):
            for shape in a.shapes.split(","):
                m, n = map(int, shape.split("x"))
                x = torch.randn(m, n, device="cuda")
                out = torch.empty(m, n, device="cuda", dtype=DTYPES[dname])
                block = triton.next_power_of_2(n)
                if kernel == "softmax":
                    src = x.to(DTYPES[dname])
                    nbytes = 2 * m * n * src.element_size()
                    launch = lambda w, el, es: softmax_kernel[(m,)](  # noqa: E731
                        out, src, n, n, BLOCK=block, EL=el, ES=es, num_warps=w)
                    peer = lambda: torch.softmax(src, -1)  # noqa: E731
                else:
                    src = torch.softmax(x, -1).to(DTYPES[dname])
                    grad = torch.randn(m, n, device="cuda").to(DTYPES[dname])
                    nbytes = 3 * m * n * src.element_size()
                    launch = lambda w, el, es: backward_kernel[(m,)](  # noqa: E731
                        out, src, grad, n, n, BLOCK=block, EL=el, ES=es, num_warps=w)
                    peer = lambda: src * (grad - (src * grad).sum(-1, keepdim=True))  # noqa: E731
                if a.compile:
                    compiled = torch.compile(peer)
                    compiled()
                res = []
                for fname, before, reset in flushes:
                    copy = copy_gbps(2 * src.numel() * src.element_size(), a.reps,
                                     before, reset)
                    res.append(f"{fname}:copy {copy:.0f}")
                    if a.compile:
                        ms = bench_ms(compiled, reps=a.reps, before=before,
                                      reset_persisting=reset)
                        res.append(f"compile {nbytes / ms / 1e6:.0f}")
                    for w in map(int, a.warps.split(",")):
                        for el in (0, 1, 2):
                            for es in (0, 1):
                                run = lambda: launch(w, el, es)  # noqa: E731
                                run()
                                ms = bench_ms(run, reps=a.reps, before=before,
                                              reset_persisting=reset)
                                res.append(f"w{w}L{el}S{es} {nbytes / ms / 1e6:.0f}")
                print(kernel, dname, m, n, " ".join(res), flush=True)


if __name__ == "__main__":
    main()
