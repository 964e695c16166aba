"""Feasibility of splitting softmax_columns' strips over more CTAs than a
cluster holds (a Triton kernel, not blockjit): NG groups of G CTAs, all
resident; a group takes a strip of BN columns at a time, each CTA R = M/G of
its rows in chunks of BM (pass 1: running max and sum per element, reduced
per column), writes its column partials to global memory, meets the group
at a barrier (an atomic counter, acquire/release at gpu scope), combines the
G partials in rank order and re-reads its rows to write (pass 2, from L2
while NG strips fit there). NOBAR=1 times the same kernel without the
barrier (its results are wrong: the cost of the exchange alone).
GB/s = 2*M*N*s / time, L2 flushed before each timed run, beside torch's
copy. Run on the GPU machine: python3 bench/columns_grid_split.py
(docs/softmax_columns_h200_grid_split.txt)."""
import sys, torch, triton, triton.language as tl

@triton.jit
def cols_split(out, x, M, N, stride, part, cnt, G: tl.constexpr, NG: tl.constexpr,
               BM: tl.constexpr, BN: tl.constexpr, R: tl.constexpr, NOBAR: tl.constexpr):
    pid = tl.program_id(0)
    group = pid // G
    rank = pid % G
    n_strips = tl.cdiv(N, BN)
    cols = tl.arange(0, BN)
    rows0 = tl.arange(0, BM)
    it = 0
    for strip in range(group, n_strips, NG):
        c = strip * BN + cols
        cm = c < N
        r_lo = rank * R
        m2 = tl.full((BM, BN), -float('inf'), tl.float32)
        s2 = tl.zeros((BM, BN), tl.float32)
        for r0 in range(r_lo, r_lo + R, BM):
            r = r0 + rows0
            msk = (r[:, None] < M) & cm[None, :]
            xv = tl.load(x + r[:, None] * stride + c[None, :], mask=msk, other=-float('inf')).to(tl.float32)
            mn = tl.maximum(m2, xv)
            sh = tl.where(mn == -float('inf'), 0.0, mn)
            s2 = s2 * tl.exp(m2 - sh) + tl.exp(xv - sh)
            m2 = mn
        m = tl.max(m2, 0)
        shm = tl.where(m == -float('inf'), 0.0, m)
        s = tl.sum(s2 * tl.exp(m2 - shm[None, :]), 0)
        par = it % 2
        base = part + ((group * 2 + par) * G + rank) * 2 * BN
        tl.store(base + cols, m)
        tl.store(base + BN + cols, s)
        tl.debug_barrier()
        target = (it + 1) * G
        if not NOBAR:
            tl.atomic_add(cnt + group, 1, sem="release", scope="gpu")
            while tl.atomic_add(cnt + group, 0, sem="acquire", scope="gpu") < target:
                pass
        tl.debug_barrier()
        ranks = tl.arange(0, G)
        pb = part + ((group * 2 + par) * G + ranks[:, None]) * 2 * BN + cols[None, :]
        pm = tl.load(pb, volatile=True)
        ps = tl.load(pb + BN, volatile=True)
        cmx = tl.max(pm, 0)
        shc = tl.where(cmx == -float('inf'), 0.0, cmx)
        csum = tl.sum(ps * tl.exp(pm - shc[None, :]), 0)
        inv = 1.0 / csum
        for r0 in range(r_lo, r_lo + R, BM):
            r = r0 + rows0
            msk = (r[:, None] < M) & cm[None, :]
            xv = tl.load(x + r[:, None] * stride + c[None, :], mask=msk, other=-float('inf')).to(tl.float32)
            y = tl.exp(xv - cmx[None, :]) * inv[None, :]
            tl.store(out + r[:, None] * stride + c[None, :], y.to(out.dtype.element_ty), mask=msk)
        it += 1

def timeit(fn, reps=30, pre=None):
    cache = torch.empty(256 << 20, dtype=torch.int8, device='cuda')
    ts = []
    for _ in range(reps):
        cache.zero_()
        if pre: pre()
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts)//2]

nsm = torch.cuda.get_device_properties(0).multi_processor_count
for dt in [torch.float32, torch.bfloat16]:
  for (M, N) in [(32768, 781), (32768, 4096), (4096, 12288)]:
    x = torch.randn(M, N, device='cuda', dtype=dt)
    ref = torch.softmax(x.float(), 0)
    out = torch.empty_like(x)
    nbytes = 2 * M * N * x.element_size()
    tc = timeit(lambda: out.copy_(x))
    best = None
    for (BN, G, NG) in [(64, 32, 8), (128, 64, 4), (128, 32, 8), (64, 16, 16)]:
      for NOBAR in [0, 1]:
        for BM, w in [(32, 4), (32, 8), (16, 4)]:
          R = triton.cdiv(triton.cdiv(M, G), BM) * BM
          part = torch.empty(NG * 2 * G * 2 * BN, device='cuda', dtype=torch.float32)
          cnt = torch.zeros(NG, device='cuda', dtype=torch.int32)
          def run():
              cols_split[(G * NG,)](out, x, M, N, x.stride(0), part, cnt, G, NG, BM, BN, R, NOBAR, num_warps=w)
          try:
              cnt.zero_(); run(); torch.cuda.synchronize()
          except Exception as e:
              print("fail", BN, G, NG, BM, w, str(e)[:80]); continue
          err = (out.float() - ref).abs().max().item()
          t = timeit(run, pre=cnt.zero_)
          r = (nbytes / t / 1e6, BN, G, NG, BM, w, err)
          if not NOBAR and (best is None or r[0] > best[0]): best = r
          print(f"  {dt} {M}x{N} NOBAR={NOBAR} BN={BN} G={G} NG={NG} BM={BM} w={w}: {r[0]:.0f} GB/s err={err:.1e}", flush=True)
    print(f"BEST {dt} {M}x{N}: {best[0]:.0f} GB/s = {best[0]/(nbytes/tc/1e6):.3f} x copy ({nbytes/tc/1e6:.0f}) cfg BN={best[1]} G={best[2]} NG={best[3]} BM={best[4]} w={best[5]} err={best[6]:.1e}", flush=True)
