#!/usr/bin/env python3
"""Which num_warps and num_stages are fastest for blockjit's softmax at each BLOCK_SIZE?

    python3 bench/tune_softmax_warps.py --lib build/lib/libblockjit_c.so

Prints GB/s (do_bench median, M = 4096) per (dtype, N, num_warps); the
heuristic in softmax_gpu.py (blockjit_config) and examples::softmaxNumWarps/
softmaxNumStages comes from this table.
"""
import argparse
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--lib", default="build/lib/libblockjit_c.so")
parser.add_argument("--n", type=int, nargs="*", help="fp32 row lengths to try")
opts = parser.parse_args()
lib = Blockjit(opts.lib)
M = 4096
shapes = [(torch.float32, c) for c in (256, 512, 1024, 1280, 1792, 2048, 4096, 8192, 12288)] + \
         [(torch.float16, 4096), (torch.bfloat16, 4096), (torch.float16, 12288)]
if opts.n:
    shapes = [(torch.float32, c) for c in opts.n]
for dtype, n in shapes:
    x = torch.randn(M, n, device="cuda", dtype=dtype)
    y = torch.empty_like(x)
    block = triton.next_power_of_2(n)
    results = []
    for warps, stages in [(w, s) for w in (1, 2, 4, 8, 16) for s in (1, 2)]:
        if block < 32 * warps:
            continue
        args = [y, x, n, n, M, n, constexpr(block)]
        info = lib.warmup("softmax", args, num_warps=warps, num_stages=stages,
                          target="cuda")
        grid = min(M, info.processors * info.max_programs_per_processor)
        stream = torch.cuda.current_stream().cuda_stream
        fn = lambda: lib.launch("softmax", args, grid=(grid,), num_warps=warps,
                                num_stages=stages, target="cuda", stream=stream)
        ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
        results.append((f"w{warps}s{stages}", 2 * x.numel() * x.element_size() / ms / 1e6))
    best = max(results, key=lambda r: r[1])
    print(f"{str(dtype):15} N={n:6} " + " ".join(f"{c}:{g:5.0f}" for c, g in results)
          + f"  best {best[0]}", flush=True)
