#!/usr/bin/env python3
"""Plots softmax_family_gpu.csv (from softmax_family_gpu.py): for one dtype,
a panel per kernel with GB/s (the kernel's minimal traffic / time) of each
provider at each shape, and blockjit/copy written over blockjit's bar.

    python3 bench/plot_softmax_family.py results/softmax_family_gpu.csv out.png [device] [dtype]
"""
import csv
import math
import sys

PROVIDERS = (("blockjit", "tab:blue"), ("torch", "tab:orange"),
             ("torch_compile", "tab:green"), ("copy", "tab:gray"))


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def plot(csv_path, png_path, device="the GPU", dtype="float32"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(csv_path) as f:
        rows = [r for r in csv.DictReader(f) if r["dtype"] == dtype]
    if not rows:
        print(f"no {dtype} rows in {csv_path}: no plot")
        return
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    cols = min(3, len(kernels))
    lines = math.ceil(len(kernels) / cols)
    fig, axes = plt.subplots(lines, cols, figsize=(5.2 * cols, 3.6 * lines), squeeze=False)
    width = 0.8 / len(PROVIDERS)
    for ax, kernel in zip(axes.flat, kernels):
        rs = [r for r in rows if r["kernel"] == kernel]
        for i, (provider, color) in enumerate(PROVIDERS):
            xs = [j + (i - (len(PROVIDERS) - 1) / 2) * width for j in range(len(rs))]
            ys = [_float(r.get(provider)) for r in rs]
            ax.bar(xs, [0 if math.isnan(y) else y for y in ys], width, color=color,
                   label=provider)
            if provider == "blockjit":
                for x, y, r in zip(xs, ys, rs):
                    ratio = _float(r.get("blockjit_over_copy"))
                    check = r.get("check", "ok")
                    text = ("wrong" if check.startswith("MISMATCH") else
                            check if check != "ok" else
                            f"{ratio:.2f}" if not math.isnan(ratio) else "")
                    ax.text(x, 0 if math.isnan(y) else y, text, ha="center", va="bottom",
                            fontsize=6, rotation=90)
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels([f"{r['M']}x{r['N']}" for r in rs], rotation=45, fontsize=7)
        ax.set_title(f"{kernel} ({rs[0].get('bytes_formula', '')})", fontsize=9)
        ax.set_ylabel("GB/s", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(kernels):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(f"Softmax family, {dtype}, on {device} "
                 "(GB/s = minimal traffic / time; number: blockjit/copy)", fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    plot(*sys.argv[1:5])
