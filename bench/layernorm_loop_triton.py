#!/usr/bin/env python3
"""Inductor's looped layer norm as a Triton kernel (not blockjit), to read
what its loop reaches without blockjit's code generation: Welford per lane,
x read twice (HINT=1: evict_last, then evict_first; weight and bias
evict_last), one program per row, N a constexpr (no masks). Every chunk R x
num_warps x HINT at four shapes, beside a device copy; prints the 8 fastest
of each. Run on the GPU machine: python3 bench/layernorm_loop_triton.py
(docs/layernorm_h200_triton_loop.txt)."""
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms  # noqa: E402

@triton.jit
def ln(x_ptr, w_ptr, b_ptr, o_ptr, N: tl.constexpr, R: tl.constexpr, HINT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = tl.arange(0, R)
    mean = tl.zeros([R], tl.float32)
    m2 = tl.zeros([R], tl.float32)
    cnt = tl.zeros([R], tl.float32)
    for off in tl.range(0, N, R):
        c = off + base
        m = c < N
        if HINT:
            x = tl.load(x_ptr + row * N + c, m, other=0.0, eviction_policy='evict_last').to(tl.float32)
        else:
            x = tl.load(x_ptr + row * N + c, m, other=0.0).to(tl.float32)
        cn = cnt + 1.0
        d = x - mean
        mn = mean + d / cn
        m2 = tl.where(m, m2 + d * (x - mn), m2)
        mean = tl.where(m, mn, mean)
        cnt = tl.where(m, cn, cnt)
    rmean = tl.sum(mean * cnt, 0) / N
    a = mean - rmean
    var = tl.sum(m2 + cnt * a * a, 0) / N
    rstd = 1.0 / tl.sqrt(var + 1e-5)
    for off in tl.range(0, N, R):
        c = off + base
        m = c < N
        if HINT:
            x = tl.load(x_ptr + row * N + c, m, other=0.0, eviction_policy='evict_first').to(tl.float32)
            w = tl.load(w_ptr + c, m, other=0.0, eviction_policy='evict_last').to(tl.float32)
            b = tl.load(b_ptr + c, m, other=0.0, eviction_policy='evict_last').to(tl.float32)
        else:
            x = tl.load(x_ptr + row * N + c, m, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + c, m, other=0.0).to(tl.float32)
            b = tl.load(b_ptr + c, m, other=0.0).to(tl.float32)
        tl.store(o_ptr + row * N + c, ((x - rmean) * rstd * w + b).to(o_ptr.dtype.element_ty), m)

for dt, M, N in ((torch.float32, 4096, 4096), (torch.bfloat16, 4096, 1024), (torch.bfloat16, 32768, 1024), (torch.float32, 32768, 4096)):
    x = torch.randn(M, N, device="cuda", dtype=dt)
    w = (1 + 0.1 * torch.randn(N, device="cuda")).to(dt)
    b = (0.1 * torch.randn(N, device="cuda")).to(dt)
    o = torch.empty_like(x)
    ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
    gb = 2 * x.numel() * x.element_size()
    cp = gb / bench_ms(lambda: o.copy_(x), 30) / 1e6
    res = []
    for R in (512, 1024, 2048, 4096):
        if R > N: continue
        for nw in (1, 2, 4, 8, 16):
            if R // (32 * nw) < 1 or R // (32 * nw) > 64: continue
            for H in (0, 1):
                f = lambda: ln[(M,)](x, w, b, o, N, R, H, num_warps=nw)
                f(); torch.cuda.synchronize()
                err = (o.float() - ref).abs().max().item()
                g = gb / bench_ms(f, 30) / 1e6
                res.append((g, R, nw, H, err))
    res.sort(reverse=True)
    print(dt, M, N, "copy %.0f" % cp, flush=True)
    for r in res[:8]:
        print("   %.0f GB/s %.3f x copy R=%d w=%d hint=%d err=%.1e" % (r[0], r[0] / cp, r[1], r[2], r[3], r[4]), flush=True)
