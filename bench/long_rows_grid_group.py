"""Feasibility of long rows without thread-block clusters (a Triton kernel,
not blockjit): a row split over a group of G resident CTAs anywhere on the
GPU, each CTA a contiguous slice of cdiv(N, G) columns, exchanging the
row's partial (max, sum) through global memory at a per-group counter
(release/acquire at gpu scope); any G, so non-powers of two waste less of a
slice than a cluster's power-of-two split, and no SM is left idle by the
clusters' placement (docs/cluster_residency_h200.txt). Every CTA of the grid
is resident (grid = occupancy from the kernel's registers and shared
memory), so the spin cannot deadlock. PREF=1 loads the next row's slice
before waiting. GB/s = 2*M*N*s / time (bench_common.bench_ms: L2 flushed, the
counter reset outside the timed region, the median), beside torch's copy of
the same bytes; QuACK's shapes (M*N = 2^31).
Run on the GPU machine:
    python3 bench/long_rows_grid_group.py [N,N,...]
(docs/long_rows_grid_group_h200.txt)."""
import os, sys, torch, triton, triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import bench_ms  # noqa: E402

@triton.jit
def grp_softmax(y, x, M, N, part, cnt, G: tl.constexpr, GP: tl.constexpr, BLOCK: tl.constexpr, PREF: tl.constexpr):
    pid = tl.program_id(0)
    ngrp = tl.num_programs(0) // G
    grp = pid // G
    rank = pid % G
    per = tl.cdiv(N, G)
    offs = tl.arange(0, BLOCK)
    cols = rank * per + offs
    cm = (offs < per) & (cols < N)
    it = 0
    if PREF:
        xv = tl.load(x + grp.to(tl.int64) * N + cols, mask=cm & (grp < M), other=-float('inf')).to(tl.float32)
    for row in range(grp, M, ngrp):
        if not PREF:
            xv = tl.load(x + row.to(tl.int64) * N + cols, mask=cm, other=-float('inf')).to(tl.float32)
        m = tl.max(xv, 0)
        s = tl.sum(tl.exp(xv - m), 0)
        par = it % 2
        base = part + ((grp * 2 + par) * G + rank) * 2
        tl.store(base, m)
        tl.store(base + 1, s)
        if PREF:
            nrow = row + ngrp
            xn = tl.load(x + nrow.to(tl.int64) * N + cols, mask=cm & (nrow < M), other=-float('inf')).to(tl.float32)
        tl.debug_barrier()
        target = (it + 1) * G
        tl.atomic_add(cnt + grp, 1, sem="release", scope="gpu")
        while tl.atomic_add(cnt + grp, 0, sem="acquire", scope="gpu") < target:
            pass
        tl.debug_barrier()
        r = tl.arange(0, GP)
        pb = part + ((grp * 2 + par) * G + r) * 2
        pm = tl.load(pb, mask=r < G, other=-float('inf'), volatile=True)
        ps = tl.load(pb + 1, mask=r < G, other=0.0, volatile=True)
        gm = tl.max(pm, 0)
        gs = tl.sum(ps * tl.exp(pm - gm), 0)
        inv = 1.0 / gs
        tl.store(y + row.to(tl.int64) * N + cols, tl.exp(xv - gm) * inv, mask=cm)
        if PREF:
            xv = xn
        it += 1

def occupancy(k, w):
    k._init_handles(); regs = k.n_regs; smem = k.metadata.shared
    thr = 32 * w
    by_regs = 65536 // max(1, ((regs * 32 + 255) // 256 * 256) * w)
    by_thr = 2048 // thr
    by_smem = (233472 // smem) if smem else 32
    return min(by_regs, by_thr, by_smem, 32)

NSM = torch.cuda.get_device_properties(0).multi_processor_count
shapes = [(torch.float32, n) for n in (50000, 65536, 131072, 200000, 262144)] + \
         [(torch.bfloat16, n) for n in (32768, 50000, 65536, 131072, 200000, 262144)]
if len(sys.argv) > 1:
    keep = set(sys.argv[1].split(","))
    shapes = [s for s in shapes if str(s[1]) in keep]
for dt, N in shapes:
    M = 32768 if N <= 32768 else (2**31) // N
    x = torch.randn(M, N, device="cuda", dtype=dt) * 3
    y = torch.empty_like(x)
    nb = 2 * M * N * x.element_size()
    ref = torch.softmax(x[:64].float(), 1)
    cms = bench_ms(lambda: y.copy_(x), 20)
    print(f"{dt} M={M} N={N} copy {nb/cms/1e6:.0f} GB/s", flush=True)
    res = []
    for G in (2, 3, 4, 5, 6, 7, 8, 10, 12, 13, 16, 20, 24, 32):
        per = -(-N // G); BLOCK = triton.next_power_of_2(per)
        if BLOCK > 16384 or BLOCK < 2048: continue
        for w in (8, 16):
            if BLOCK // (32 * w) > 64 or BLOCK // (32 * w) < 4: continue
            for pref in (0, 1):
                part = torch.empty(2 * 4096 * 2 * 32, device="cuda", dtype=torch.float32)
                cnt = torch.zeros(4096, device="cuda", dtype=torch.int32)
                k = grp_softmax.warmup(y, x, M, N, part, cnt, G, triton.next_power_of_2(G), BLOCK, pref, grid=(G,), num_warps=w)
                occ = occupancy(k, w)
                ngrp = (NSM * occ) // G
                if ngrp < 1: continue
                grid = (ngrp * G,)
                def run():
                    grp_softmax[grid](y, x, M, N, part, cnt, G, triton.next_power_of_2(G), BLOCK, pref, num_warps=w)
                ms = bench_ms(run, 10, warmup=1, before=cnt.zero_)
                err = (y[:64].float() - ref).abs().max().item()
                gbps = nb / ms / 1e6
                res.append((gbps, G, w, pref, k.n_regs, occ, ngrp, err))
    res.sort(reverse=True)
    for r in res[:6]:
        print(f"   {r[0]:.0f} GB/s {r[0]/(nb/cms/1e6):.3f} x copy G={r[1]} w={r[2]} pref={r[3]} regs={r[4]} occ={r[5]} groups={r[6]} err={r[7]:.1e}", flush=True)
