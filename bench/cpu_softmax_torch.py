"""blockjit's CPU backend vs torch.softmax on the CPU, side by side.

    python3 bench/cpu_softmax_torch.py [--threads 1,all] [--csv docs/cpu_softmax.csv]
                                       [--shapes 4096x256,...] [--samples 15]

Each thread count runs in a subprocess of its own (BLOCKJIT_CPU_THREADS and
torch.set_num_threads set before either starts its pool). Same float32
input for every contender, values N(0, 3). Contenders:

- blockjit: the `softmax` example kernel launched through the C ABI's
  prepared launch (bench/blockjit_ctypes.py) on the CPU target, grid = rows
  (one program per row), writing a preallocated output;
- blockjit_inproc: the same launch timed inside the process (C++, no Python
  per call), from build/bin/cpu_softmax --inproc;
- torch: torch.softmax(x, dim=1), which allocates its output per call (as a
  user calls it), and torch_out: torch.softmax(x, 1, out=y) into a
  preallocated one;
- hand: the hand-written three-pass loop of bench/cpu_softmax_reference.cpp
  (-O3 -march=native, std::thread per call for > 1 thread).

Timing: contenders take turns sample by sample (interleaved, the order
rotated every sample); a sample is >= 50 ms of untimed calls (warm caches
and clocks) then >= 20 ms of timed calls, and each contender reports the
median of its samples. With several threads the bench waits 0.3 s after
torch's samples: torch's OpenMP workers spin after a parallel region (up to
KMP_BLOCKTIME = 200 ms with Intel's runtime) and would take the cores from
the next contender (see measure()). GB/s = 2 * rows * cols * 4 / time (one read, one write).
"""
import argparse
import ctypes
import csv
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

SHAPES = [(1823, 781), (4096, 256), (4096, 1024), (512, 12288), (32768, 128),
          (16, 8192), (8192, 128), (64, 65536)]
CONTENDERS = ["blockjit", "torch", "torch_out", "hand"]


def ensure_torch():
    """torch from PyPI when it is missing: the CPU wheel from PyTorch's own
    index where that host resolves, else PyPI's default wheel."""
    try:
        import torch  # noqa: F401
        return
    except ImportError:
        pass
    import socket
    try:
        socket.getaddrinfo("download.pytorch.org", 443)
        index = ["--index-url", "https://download.pytorch.org/whl/cpu",
                 "--extra-index-url", "https://pypi.org/simple"]
    except OSError:
        index = []
    print("installing torch from " + ("PyTorch's CPU index" if index else "PyPI") + " ...",
          file=sys.stderr)
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", *index, "torch"])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def next_power_of_2(n):
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def timed_batch(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def measure(fns, samples, threads=1):
    """Median seconds per call of each function, interleaved sample by sample
    in an order rotated every sample (no contender always runs right after
    another's pause): each sample runs its function untimed for >= 50 ms,
    then timed for >= 20 ms. With several threads the bench pauses 0.3 s
    after each torch sample: its OpenMP workers keep spinning after the last
    parallel region (Intel's runtime for KMP_BLOCKTIME, 200 ms by default)
    and would take the cores from the next contender. The long warm-up is
    for what follows a pause: on the VMs measured here a 0.3 s pause left
    the next 30+ ms of a 25 MB softmax 35 % slower (13.9 -> 8.6 GB/s), and a
    10 ms warm-up, always after torch's pause, charged that to blockjit."""
    calls, warm = {}, {}
    for name, fn in fns.items():
        # Batches that double until one lasts >= 5 ms (the first calls may
        # start thread pools), then as many calls as last 20 ms.
        batch = 1
        while True:
            t = timed_batch(fn, batch)
            if t * batch >= 5e-3:
                break
            batch *= 2
        calls[name] = max(1, int(20e-3 / max(t, 1e-7)))
        warm[name] = max(1, int(50e-3 / max(t, 1e-7)))
    times = {name: [] for name in fns}
    names = list(fns)
    for sample in range(samples):
        k = sample % len(names)
        for name in names[k:] + names[:k]:
            fn = fns[name]
            timed_batch(fn, warm[name])
            times[name].append(timed_batch(fn, calls[name]))
            if threads > 1 and name.startswith("torch"):
                time.sleep(0.3)
    return {name: statistics.median(t) for name, t in times.items()}


def run_threads(threads, shapes, samples, build):
    """One thread count, in this process: a list of result rows."""
    import torch
    from blockjit_ctypes import Blockjit, constexpr
    torch.set_num_threads(threads)
    lib = Blockjit(os.path.join(build, "lib", "libblockjit_c.so"))
    reference = ctypes.CDLL(os.path.join(build, "lib", "libcpu_softmax_reference.so"))
    reference.reference_softmax.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                            ctypes.c_int64, ctypes.c_int64,
                                            ctypes.c_int32]
    inproc = inprocess_times(build, threads, shapes, samples)
    rows_out = []
    for rows, cols in shapes:
        gen = torch.Generator().manual_seed(1)
        x = torch.randn(rows, cols, generator=gen) * 3
        y = torch.empty_like(x)
        y_out = torch.empty_like(x)
        y_hand = torch.empty_like(x)
        args = [y, x, cols, cols, rows, cols, constexpr(next_power_of_2(cols))]
        prepared = lib.prepare("softmax", args, grid=(rows,), target="cpu")
        launch = prepared.launch
        runtime = [y, x, cols, cols, rows, cols]
        fns = {
            "blockjit": lambda: launch(*runtime),
            "torch": lambda: torch.softmax(x, 1),
            "torch_out": lambda: torch.softmax(x, 1, out=y_out),
            "hand": lambda: reference.reference_softmax(
                x.data_ptr(), y_hand.data_ptr(), rows, cols, threads),
        }
        seconds = measure(fns, samples, threads)
        expected = torch.softmax(x.double(), 1).float()
        error = (y - expected).abs().max().item()
        if error > 1e-5:
            raise SystemExit(f"blockjit's softmax is off by {error} at {rows}x{cols}")
        gbps = {k: 2 * rows * cols * 4 / s / 1e9 for k, s in seconds.items()}
        gbps["blockjit_inproc"] = inproc.get((rows, cols), float("nan"))
        rows_out.append({"rows": rows, "cols": cols, "threads": threads, **gbps})
    return rows_out


def inprocess_times(build, threads, shapes, samples):
    """GB/s of the JIT launched from C++ (build/bin/cpu_softmax --inproc)."""
    spec = ",".join(f"{r}x{c}" for r, c in shapes)
    env = dict(os.environ, BLOCKJIT_CPU_THREADS=str(threads))
    run = subprocess.run([os.path.join(build, "bin", "cpu_softmax"), "--inproc",
                          "--shapes", spec, "--samples", str(samples)],
                         env=env, capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(f"cpu_softmax --inproc failed:\n{run.stderr}")
    out = run.stdout
    result = {}
    for line in out.splitlines():
        rows, cols, gbps = line.split(",")
        result[(int(rows), int(cols))] = float(gbps)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,all",
                        help="comma-separated thread counts; 'all' = the CPUs this process may use")
    parser.add_argument("--shapes", default=None, help="e.g. 4096x256,16x8192")
    parser.add_argument("--samples", type=int, default=15)
    parser.add_argument("--csv", default=None, help="write the results here")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    shapes = SHAPES
    if args.shapes:
        shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    if args.child is not None:
        print(json.dumps(run_threads(args.child, shapes, args.samples, args.build)))
        return
    ensure_torch()
    cores = len(os.sched_getaffinity(0))
    counts = []
    for t in args.threads.split(","):
        n = cores if t == "all" else int(t)
        if n not in counts:
            counts.append(n)
    results = []
    for n in counts:
        env = dict(os.environ, BLOCKJIT_CPU_THREADS=str(n), OMP_NUM_THREADS=str(n))
        out = subprocess.run([sys.executable, __file__, "--child", str(n),
                              "--samples", str(args.samples), "--build", args.build,
                              "--shapes", ",".join(f"{r}x{c}" for r, c in shapes)],
                             env=env, capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"the {n}-thread run failed:\n{out.stderr}")
        results += json.loads(out.stdout.strip().splitlines()[-1])
    import torch
    print(f"# {cpu_model()}, {cores} CPUs usable; torch {torch.__version__}; "
          "blockjit writes a preallocated output, torch.softmax allocates its own "
          "(torch_out: out= a preallocated one)")
    print(f"{'shape':>12} {'thr':>3} {'blockjit':>9} {'inproc':>7} {'torch':>7} "
          f"{'torch_out':>9} {'hand':>7} {'bj/torch':>8}")
    for r in results:
        print(f"{r['rows']:>6}x{r['cols']:<6} {r['threads']:>3} {r['blockjit']:9.2f} "
              f"{r['blockjit_inproc']:7.2f} {r['torch']:7.2f} {r['torch_out']:9.2f} "
              f"{r['hand']:7.2f} {r['blockjit'] / r['torch']:8.2f}")
    if args.csv:
        fields = ["cpu", "rows", "cols", "threads", "blockjit", "blockjit_inproc",
                  "torch", "torch_out", "hand", "blockjit_over_torch"]
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            for r in results:
                w.writerow({"cpu": cpu_model(), **{k: (round(v, 3) if isinstance(v, float) else v)
                                                   for k, v in r.items()},
                            "blockjit_over_torch": round(r["blockjit"] / r["torch"], 3)})


if __name__ == "__main__":
    main()
