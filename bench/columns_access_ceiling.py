"""The DRAM ceiling of softmax_columns' access pattern on a GPU: a Triton copy of
[BM, BN] tiles of a row-major M x N matrix, one tile a program, read once and
written once. ORDER strip: consecutive programs take the row blocks of one
strip of BN columns (as the CTAs of a cluster split a strip), row: the strips
of one row block. GB/s = 2*M*N*s / time, beside torch's copy of the matrix.
    python3 bench/columns_access_ceiling.py > ceiling.txt
(L2 is not flushed between runs: each run moves 64 MB to 1 GB; Triton spills at
BM*BN = 65536, those rows are not a ceiling.)"""
import torch, triton, triton.language as tl

@triton.jit
def tile_copy(y, x, M, N, BM: tl.constexpr, BN: tl.constexpr, STRIP_MAJOR: tl.constexpr):
    pid = tl.program_id(0)
    nrb = tl.cdiv(M, BM); ns = tl.cdiv(N, BN)
    if STRIP_MAJOR:
        s = pid // nrb; r = pid % nrb
    else:
        r = pid // ns; s = pid % ns
    rows = r * BM + tl.arange(0, BM)[:, None]
    cols = s * BN + tl.arange(0, BN)[None, :]
    m = (rows < M) & (cols < N)
    v = tl.load(x + rows * N + cols, mask=m)
    tl.store(y + rows * N + cols, v, mask=m)

def bench(fn):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True); e0.record()
    for _ in range(20): fn()
    e1.record(); torch.cuda.synchronize(); return e0.elapsed_time(e1) / 20

for dt in (torch.float32, torch.bfloat16):
    for M, N in ((4096, 4096), (32768, 4096), (4096, 12288)):
        x = torch.randn(M, N, device="cuda", dtype=dt); y = torch.empty_like(x)
        nb = 2 * x.numel() * x.element_size()
        ms = bench(lambda: y.copy_(x)); print(f"{dt} {M}x{N} torch copy {nb/ms/1e6:.0f} GB/s", flush=True)
        for bn in (8, 16, 32, 64, 128, 256):
            for bm in (64, 256, 1024):
                if bm * bn > 65536 or bm * bn < 2048: continue
                for sm in (1, 0):
                    g = triton.cdiv(M, bm) * triton.cdiv(N, bn)
                    w = 4 if bm * bn <= 8192 else 8
                    ms = bench(lambda: tile_copy[(g,)](y, x, M, N, bm, bn, sm, num_warps=w))
                    print(f"{dt} {M}x{N} BN={bn} ({bn*x.element_size()} B) BM={bm} {'strip' if sm else 'row'}-major {nb/ms/1e6:.0f} GB/s", flush=True)
