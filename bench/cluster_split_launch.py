#!/usr/bin/env python3
"""Can the SMs a cluster leaves idle take rows of their own? softmax's long
rows with the last R rows run by softmax_online on a second stream at the
same time as the tuned cluster kernel on the rest (both blockjit's autotuned
prepared launches), timed together (bench_common.bench_ms: L2 flushed, the
median), as GB/s of the whole problem and x a device copy; a first, middle
and last row checked against torch.softmax. Run on the GPU machine:

    python3 bench/cluster_split_launch.py

(docs/LAYOUTS.md, "SMs a cluster leaves idle": every R > 0 was slower.)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit  # noqa: E402
from softmax_gpu import BlockjitSoftmax  # noqa: E402
from bench_common import bench_ms  # noqa: E402


def main():
    lib = Blockjit(sys.argv[1] if len(sys.argv) > 1 else "build/lib/libblockjit_c.so")
    sm = BlockjitSoftmax(lib, "softmax")
    on = BlockjitSoftmax(lib, "softmax_online")
    s2 = torch.cuda.Stream()
    for dt, N in ((torch.float32, 262144), (torch.bfloat16, 262144), (torch.float32, 131072)):
        M = (1 << 31) // N
        x = torch.randn(M, N, device="cuda", dtype=dt)
        y = torch.empty_like(x)
        gb = 2 * M * N * x.element_size()
        cp = gb / bench_ms(lambda: y.copy_(x), 20) / 1e6
        for r in (0, 128, 256, 512, 1024):
            a = M - r
            def run():
                if r:
                    start = torch.cuda.Event()
                    start.record()
                    s2.wait_event(start)
                    with torch.cuda.stream(s2):
                        on(x[a:], y[a:])
                sm(x[:a], y[:a])
                if r:
                    done = torch.cuda.Event()
                    done.record(s2)
                    torch.cuda.current_stream().wait_event(done)
            run(); torch.cuda.synchronize()
            rows = [0, a - 1, a, M - 1] if r else [0, M - 1]
            idx = torch.tensor(rows, device="cuda")
            err = (y[idx].float() - torch.softmax(x[idx].float(), -1)).abs().max().item()
            g = gb / bench_ms(run, 20) / 1e6
            print(f"{dt} N={N} M={M} online_rows={r} {g:.0f} GB/s "
                  f"{g / cp:.3f} x copy err={err:.1e}", flush=True)


if __name__ == "__main__":
    main()
