#!/usr/bin/env python3
"""Host time per softmax launch from Python: blockjit's prepared handle vs
its plain C ABI call vs torch.softmax vs the Triton tutorial's launch.

    python3 bench/launch_overhead.py --lib build/lib/libblockjit_c.so

20000 launches of a 4 x 128 fp32 softmax (tiny: the host is the limit), no
synchronization inside the timed loop; the providers take turns for
--rounds rounds and the medians are printed (host microseconds per call).
blockjit's prepared launch is the autotuned one the benchmarks use, called
with the runtime arguments only (Prepared.launch, bench/blockjit_ctypes.py).
"""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blockjit_ctypes import Blockjit, constexpr  # noqa: E402
from softmax_gpu import triton_softmax  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", default="build/lib/libblockjit_c.so")
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    lib = Blockjit(opts.lib)
    m, n = 4, 128
    x = torch.randn(m, n, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream().cuda_stream
    args = [y, x, n, n, m, n, constexpr(128)]
    prepared = lib.prepare("softmax", args, autotune=True, target="cuda", stream=stream)
    launch = prepared.launch
    grid = (prepared.info.max_resident_programs and min(m, prepared.info.max_resident_programs),)
    providers = {
        "blockjit prepared": lambda: launch(y, x, n, n, m, n),
        "blockjit launch": lambda: lib.launch("softmax", args, grid=grid, num_warps=1,
                                              target="cuda", stream=stream),
        "torch.softmax": lambda: torch.softmax(x, dim=-1),
        "triton launch": lambda: triton_softmax(x, y),
    }
    for fn in providers.values():  # compile, tune, warm up
        for _ in range(100):
            fn()
    torch.cuda.synchronize()
    ref = torch.softmax(x, dim=-1)
    launch(y, x, n, n, m, n)
    torch.cuda.synchronize()
    assert torch.allclose(y, ref, atol=1e-6), "prepared launch is wrong"
    times = {name: [] for name in providers}
    for _ in range(opts.rounds):
        for name, fn in providers.items():
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(opts.launches):
                fn()
            times[name].append((time.perf_counter() - start) / opts.launches * 1e6)
            torch.cuda.synchronize()
    print(f"device: {torch.cuda.get_device_name()}; host us per call, {m}x{n} fp32 softmax, "
          f"{opts.launches} launches, median of {opts.rounds} rounds; blockjit config "
          f"{prepared.config}")
    torch_us = statistics.median(times["torch.softmax"])
    for name, us in times.items():
        med = statistics.median(us)
        print(f"  {name:18} {med:7.2f} us  (x{med / torch_us:.2f} torch.softmax; "
              f"rounds {min(us):.2f}..{max(us):.2f})")


if __name__ == "__main__":
    main()
