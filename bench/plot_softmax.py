#!/usr/bin/env python3
"""Plots softmax_gpu.csv (from softmax_gpu.py): GB/s against N, fp32."""
import csv
import sys


def plot(csv_path, png_path, device="the GPU"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(csv_path) as f:
        rows = [r for r in csv.DictReader(f)
                if r["dtype"] == "float32" and r.get("M", "4096") == "4096"]
    n = [int(r["N"]) for r in rows]
    fig, ax = plt.subplots(figsize=(9, 5))
    for provider, style in (("blockjit", "-o"), ("triton", "-s"),
                            ("triton_tuned", "-d"), ("torch", "-^"), ("copy", "--")):
        if provider in rows[0]:
            ax.plot(n, [float(r[provider]) for r in rows], style, markersize=3,
                    label=provider)
    ax.set_xlabel("N (columns), M = 4096, fp32")
    ax.set_ylabel("GB/s (2·M·N·4 bytes / time)")
    ax.set_title("Row-wise softmax on " + device)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    plot(sys.argv[1], sys.argv[2], *sys.argv[3:4])
