#!/usr/bin/env python3
"""Plots cpu_softmax*.csv (from cpu_softmax_torch.py): GB/s per shape,
blockjit vs torch.softmax, one panel per thread count.

    python3 bench/plot_cpu_softmax.py docs/cpu_softmax.csv docs/cpu_softmax.png
"""
import csv
import sys


def plot(csv_path, png_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(csv_path)))
    threads = sorted({int(r["threads"]) for r in rows})
    fig, axes = plt.subplots(1, len(threads), figsize=(6 * len(threads), 4.5))
    axes = axes if len(threads) > 1 else [axes]
    for ax, t in zip(axes, threads):
        sel = [r for r in rows if int(r["threads"]) == t]
        labels = [f'{r["rows"]}x{r["cols"]}' for r in sel]
        x = range(len(sel))
        for i, (key, name) in enumerate((("blockjit", "blockjit (C ABI)"),
                                         ("blockjit_inproc", "blockjit (in-process)"),
                                         ("torch", "torch.softmax"),
                                         ("hand", "hand-written loop"))):
            ax.bar([v + (i - 1.5) * 0.2 for v in x], [float(r[key]) for r in sel],
                   0.2, label=name)
        ax.set_xticks(list(x), labels, rotation=30, fontsize=8)
        ax.set_ylabel("GB/s (2·M·N·4 bytes / time)")
        ax.set_title(f"{sel[0]['cpu']}, {t} thread(s)")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    plot(sys.argv[1], sys.argv[2])
