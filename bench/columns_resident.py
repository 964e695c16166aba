#!/usr/bin/env python3
"""Can softmax over dim 0 read x once at M = 32768 (a Triton kernel, not
blockjit)? Each CTA holds its [R, BN] slice of a strip of BN columns in
registers; the G CTAs of a group exchange the strip's column partials (max,
sum) through global memory at an atomic-counter barrier (acquire/release,
gpu scope; a spin limit turns a grid that is not all resident into a wrong
answer rather than a hang), combine them in rank order and write; NG groups
take strips in turn. PF=1 loads the next strip before the barrier. GB/s =
2*M*N*s / time (bench_common.bench_ms), beside a device copy. Run on the GPU machine:
SHAPES=32768x4096,32768x12288 python3 bench/columns_resident.py OUT.txt
(docs/softmax_columns_h200_resident_grid.txt)."""
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms, next_power_of_2  # noqa: E402


@triton.jit
def cols_res(out, x, M, N, stride, part, cnt, G: tl.constexpr, GP: tl.constexpr,
             NG: tl.constexpr, R: tl.constexpr, BN: tl.constexpr, PF: tl.constexpr,
             SPIN: tl.constexpr):
    pid = tl.program_id(0)
    group = pid // G
    rank = pid % G
    RR = tl.cdiv(M, G)
    rr = tl.arange(0, R)
    r = rank * RR + rr
    rm = (rr < RR) & (r < M)
    n_strips = tl.cdiv(N, BN)
    cols = tl.arange(0, BN)
    ranks = tl.arange(0, GP)
    if PF:
        c0 = group * BN + cols
        xv = tl.load(x + r[:, None] * stride + c0[None, :], mask=rm[:, None] & (c0 < N)[None, :],
                     other=-float('inf')).to(tl.float32)
    else:
        xv = tl.zeros((R, BN), tl.float32)
    it = 0
    for strip in range(group, n_strips, NG):
        c = strip * BN + cols
        msk = rm[:, None] & (c < N)[None, :]
        if not PF:
            xv = tl.load(x + r[:, None] * stride + c[None, :], mask=msk, other=-float('inf')).to(tl.float32)
        m = tl.max(xv, 0)
        shm = tl.where(m == -float('inf'), 0.0, m)
        s = tl.sum(tl.exp(xv - shm[None, :]), 0)
        par = it % 2
        base = part + ((group * 2 + par) * G + rank) * 2 * BN
        tl.store(base + cols, m)
        tl.store(base + BN + cols, s)
        if PF:
            cn = (strip + NG) * BN + cols
            xn = tl.load(x + r[:, None] * stride + cn[None, :], mask=rm[:, None] & (cn < N)[None, :],
                         other=-float('inf')).to(tl.float32)
        tl.debug_barrier()
        target = (it + 1) * G
        tl.atomic_add(cnt + group, 1, sem="release", scope="gpu")
        spins = 0
        v = tl.atomic_add(cnt + group, 0, sem="acquire", scope="gpu")
        while (v < target) & (spins < SPIN):
            v = tl.atomic_add(cnt + group, 0, sem="acquire", scope="gpu")
            spins += 1
        tl.debug_barrier()
        pb = part + ((group * 2 + par) * G + ranks[:, None]) * 2 * BN + cols[None, :]
        pmask = (ranks < G)[:, None]
        pm = tl.load(pb, mask=pmask, other=-float('inf'), volatile=True)
        ps = tl.load(pb + BN, mask=pmask, other=0.0, volatile=True)
        cmx = tl.max(pm, 0)
        shc = tl.where(cmx == -float('inf'), 0.0, cmx)
        csum = tl.sum(ps * tl.exp(pm - shc[None, :]), 0)
        inv = 1.0 / csum
        y = tl.exp(xv - shc[None, :]) * inv[None, :]
        tl.store(out + r[:, None] * stride + c[None, :], y.to(out.dtype.element_ty), mask=msk)
        if PF:
            xv = xn
        it += 1


if __name__ == '__main__':
    nsm = torch.cuda.get_device_properties(0).multi_processor_count
    log = open(sys.argv[1], "w") if len(sys.argv) > 1 else sys.stdout
    def p(*a):
        print(*a, flush=True)
        if log is not sys.stdout:
            print(*a, file=log, flush=True)
    shapes = [tuple(map(int, t.split('x'))) for t in os.environ.get('SHAPES', '32768x4096,32768x12288').split(',')]
    for (M, N) in shapes:
        for dt in [{"fp32": torch.float32, "bf16": torch.bfloat16}[d]
                   for d in os.environ.get('DTYPES', 'fp32').split(',')]:
            x = torch.randn(M, N, device='cuda', dtype=dt)
            ref = torch.softmax(x.float(), 0)
            out = torch.empty_like(x)
            nbytes = 2 * M * N * x.element_size()
            tc = bench_ms(lambda: out.copy_(x), 20)
            copy = nbytes / tc / 1e6
            cfgs = []
            # (groups, columns a strip, warps, prefetch): one CTA an SM.
            # CONFIGS="NG:BN:w:PF,..." replaces the list; NG = 0 gives every
            # strip a group of its own (the whole matrix held at once).
            configs = [(2, 64, 16, 0), (4, 32, 16, 0), (8, 16, 16, 0),
                       (4, 16, 16, 1), (2, 32, 16, 1), (4, 16, 8, 0),
                       (1, 32, 16, 0), (1, 64, 8, 0), (1, 128, 16, 0)]
            if os.environ.get('CONFIGS'):
                configs = [tuple(map(int, c.split(':')))
                           for c in os.environ['CONFIGS'].split(',')]
            for (NG, BN, w, PF) in configs:
                NG = NG or triton.cdiv(N, BN)
                G = nsm // NG
                R = next_power_of_2(triton.cdiv(M, G))
                cfgs.append((G, NG, R, BN, w, PF))
            best = None
            for (G, NG, R, BN, w, PF) in cfgs:
                part = torch.empty(NG * 2 * G * 2 * BN, device='cuda', dtype=torch.float32)
                cnt = torch.zeros(NG, device='cuda', dtype=torch.int32)
                def run():
                    cols_res[(G * NG,)](out, x, M, N, x.stride(0), part, cnt, G, next_power_of_2(G), NG, R, BN, PF, 1 << 14, num_warps=w)
                try:
                    cnt.zero_(); run(); torch.cuda.synchronize()
                except Exception as e:
                    p("fail", G, NG, R, BN, w, PF, str(e)[:100]); continue
                err = (out.float() - ref).abs().max().item()
                t = bench_ms(run, 20, before=cnt.zero_)
                gbs = nbytes / t / 1e6
                p(f"  {dt} {M}x{N} G={G} NG={NG} R={R} BN={BN} w={w} PF={PF}: {gbs:.0f} GB/s {gbs/copy:.3f}x err={err:.1e}")
                if err < 1e-2 and (best is None or gbs > best[0]): best = (gbs, G, NG, R, BN, w, PF)
            if best: p(f"BEST {dt} {M}x{N}: {best[0]:.0f} GB/s = {best[0]/copy:.3f} x copy ({copy:.0f}) cfg {best[1:]}")
