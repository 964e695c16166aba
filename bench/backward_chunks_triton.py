#!/usr/bin/env python3
"""softmax's backward read twice in chunks (Inductor's looped reduction) or
once as a whole row, in Triton (no blockjit), beside torch.compile and a
device copy of the same bytes, timed by bench_common.bench_ms (persisting
lines reset, 256 MB write flush).

    python3 bench/backward_chunks_triton.py --dtypes bf16,fp32 \
        --shapes 4096x4096,4096x1024 --inductor-dir /tmp/inductor

dx = y * (dy - sum(y * dy)) per row. GB/s of the minimal traffic 3*M*N*s.
Columns: row w<warps> L<0 plain, 2 evict_last> (the row read once);
chunks c<chunk> w<warps> (the first read evict_last, the second
evict_first, Inductor's hints), one program a row. --inductor-dir keeps
torch.compile's generated kernels there (TORCHINDUCTOR_CACHE_DIR) so that
its config can be read off.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtypes", default="bf16,fp32")
    p.add_argument("--shapes", default="4096x4096,4096x1024,32768x4096")
    p.add_argument("--warps", default="4,8,16")
    p.add_argument("--chunks", default="512,1024,2048")
    p.add_argument("--reps", type=int, default=40)
    p.add_argument("--inductor-dir", default=None)
    a = p.parse_args()
    if a.inductor_dir:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = a.inductor_dir
    import torch
    import triton
    import triton.language as tl
    from bench_common import bench_ms, copy_gbps
    # The row read once: the eviction bench's kernel (EL 0 plain, 2
    # evict_last; ES 0 a plain store).
    from eviction_hints_triton import backward_kernel

    @triton.jit
    def chunk_kernel(dx, y, dy, stride, n, CHUNK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, CHUNK)
        acc = tl.zeros([CHUNK], tl.float32)
        for start in range(0, n, CHUNK):
            cols = start + offs
            mask = cols < n
            a = tl.load(y + row * stride + cols, mask=mask, other=0.0,
                        eviction_policy="evict_last").to(tl.float32)
            b = tl.load(dy + row * stride + cols, mask=mask, other=0.0,
                        eviction_policy="evict_last").to(tl.float32)
            acc += a * b
        s = tl.sum(acc, 0)
        for start in range(0, n, CHUNK):
            cols = start + offs
            mask = cols < n
            a = tl.load(y + row * stride + cols, mask=mask, other=0.0,
                        eviction_policy="evict_first").to(tl.float32)
            b = tl.load(dy + row * stride + cols, mask=mask, other=0.0,
                        eviction_policy="evict_first").to(tl.float32)
            tl.store(dx + row * stride + cols,
                     (a * (b - s)).to(dx.dtype.element_ty), mask=mask)

    dtypes = {"fp32": torch.float32, "bf16": torch.bfloat16}
    for dname in a.dtypes.split(","):
        for shape in a.shapes.split(","):
            m, n = map(int, shape.split("x"))
            dt = dtypes[dname]
            y = torch.softmax(torch.randn(m, n, device="cuda"), -1).to(dt)
            dy = torch.randn(m, n, device="cuda").to(dt)
            dx = torch.empty_like(y)
            nbytes = 3 * m * n * y.element_size()
            want = (y.float() * (dy.float() - (y.float() * dy.float()).sum(
                -1, keepdim=True)))
            res = [f"copy {copy_gbps(nbytes, a.reps):.0f}"]
            compiled = torch.compile(
                lambda: y * (dy - (y * dy).sum(-1, keepdim=True)))
            compiled()
            ms = bench_ms(compiled, reps=a.reps)
            res.append(f"compile {nbytes / ms / 1e6:.0f}")
            block = triton.next_power_of_2(n)
            runs = []
            for w in map(int, a.warps.split(",")):
                for el in (0, 2):
                    runs.append((f"row w{w} L{el}", lambda w=w, el=el: backward_kernel[(m,)](
                        dx, y, dy, n, n, BLOCK=block, EL=el, ES=0, num_warps=w)))
                for c in map(int, a.chunks.split(",")):
                    if c * 2 > block or c < 32 * w:
                        continue
                    runs.append((f"c{c} w{w}", lambda w=w, c=c: chunk_kernel[(m,)](
                        dx, y, dy, n, n, CHUNK=c, num_warps=w)))
            for name, run in runs:
                run()
                err = (dx.float() - want).abs().max().item()
                ms = bench_ms(run, reps=a.reps)
                res.append(f"{name} {nbytes / ms / 1e6:.0f}"
                           + ("" if err < 0.05 else f" (err {err:.2g})"))
            print(dname, shape, " | ".join(res), flush=True)


if __name__ == "__main__":
    main()
