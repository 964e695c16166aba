#!/usr/bin/env python3
"""Experiment: a ptxas wrapper (BLOCKJIT_PTXAS=this) that assembles a kernel
as ptxas would, then, when a few registers fewer would fit one more CTA an
SM, assembles it again with .minnctapersm at that step (ptxas ignores
--maxrregcount beside .maxntid) and keeps that cubin if ptxas spilled
nothing. Decisions go to $CAP_LOG."""
import os
import re
import subprocess
import sys

REAL = os.environ.get("REAL_PTXAS", "ptxas")
MAX_DROP = float(os.environ.get("CAP_MAX_DROP", "0.15"))
args = sys.argv[1:]
ptx_path = next(a for a in args if a.endswith(".ptx"))
ptx = open(ptx_path).read()


output = args[args.index("-o") + 1]


def assemble(min_ctas=None):
    """ptxas on the PTX (with .minnctapersm `min_ctas`: a copy of it, into
    a cubin beside the output, moved there by the caller if kept)."""
    run_args = list(args)
    if min_ctas:
        capped = ptx_path[:-4] + ".capped.ptx"
        with open(capped, "w") as f:
            f.write(re.sub(r"(\.maxntid [^\n]*\n)", r"\1.minnctapersm %d\n" % min_ctas, ptx, count=1))
        run_args = [capped if a == ptx_path else output + ".capped" if a == output else a
                    for a in args]
    r = subprocess.run([REAL, "-v"] + run_args, capture_output=True, text=True)
    if min_ctas:
        os.remove(capped)
    text = r.stdout + r.stderr
    regs = re.search(r"Used (\d+) registers", text)
    spill = re.findall(r"(\d+) bytes spill (?:stores|loads)", text)
    return r, int(regs.group(1)) if regs else None, sum(map(int, spill))


def log(msg):
    if os.environ.get("CAP_LOG"):
        with open(os.environ["CAP_LOG"], "a") as f:
            f.write(msg + "\n")


r, regs, spills = assemble()
if r.returncode or regs is None:
    sys.stderr.write(r.stderr)
    sys.exit(r.returncode)
ntid = re.search(r"\.maxntid (\d+), (\d+), (\d+)", ptx)
# blockjit-dump's header names the specialization; the runtime's PTX has
# only the entry.
name = re.search(r"// kernel (\S+)", ptx) or re.search(r"\.entry (\w+)", ptx)
name = name.group(1)[:90] if name else "?"
if ntid:
    threads = int(ntid.group(1)) * int(ntid.group(2)) * int(ntid.group(3))
    warps = (threads + 31) // 32
    limit = min(32, 64 // warps)

    def ctas(n):
        per_warp = (n * 32 + 255) // 256 * 256
        return min(limit, 65536 // (per_warp * warps))

    now = ctas(regs)
    if now < limit:
        cap = (65536 // ((now + 1) * warps * 32)) // 8 * 8
        cap = min(cap, 255)
        if cap >= 24 and cap >= regs * (1 - MAX_DROP):
            r2, regs2, spills2 = assemble(now + 1)
            if r2.returncode == 0 and spills2 == 0 and regs2 is not None and ctas(regs2) > now:
                os.replace(output + ".capped", output)
                log(f"capped {name} warps={warps} {regs}->{regs2} ctas {now}->{ctas(regs2)}")
                sys.exit(0)
            if os.path.exists(output + ".capped"):
                os.remove(output + ".capped")
            log(f"kept {name} warps={warps} {regs} (cap {cap}: spills {spills2})")
            sys.exit(0)
    log(f"plain {name} warps={warps} regs={regs} ctas={now}")
sys.exit(0)
