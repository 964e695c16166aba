#!/usr/bin/env python3
"""A ptxas wrapper for an experiment (BLOCKJIT_PTXAS=bench/ptxas_double_buffer.py):
does a softmax row pay for the barrier that frees the scratch array after
each cross-warp reduction? Each reduction across warps is `st.shared` of the
warp's partial, `bar.sync`, the reads of every warp's partial, `bar.sync`
(the array is free again). With the array doubled and consecutive
reductions alternating between its halves, the second barrier can go: a
thread writes a half again only after the next reduction's first barrier,
which every thread reaches after its reads of this one. Safe only where
every loop body has an even number of such reductions and nothing else uses
the array; the wrapper edits kernels named softmax whose reductions match
that shape, leaves other PTX as it is, and says what it did on stderr.
"""
import os
import re
import shutil
import subprocess
import sys

DECL = re.compile(r"^(\s*\.shared \.align \d+ \.b8 (__blk_smem_\w+))\[(\d+)\];")
STORE = re.compile(r"^(\s*st\.shared\.(?:b32|f32)\s+)\[(%rd\d+)\](, .*)$")
BAR = re.compile(r"^\s*bar\.sync\s+0;")


def patch(text):
    lines = text.split("\n")
    if not any(".entry softmax(" in l or ".entry softmax\n" in l or
               re.search(r"\.entry softmax\b", l) for l in lines):
        return None, "not softmax"
    decls = [(i, DECL.match(l)) for i, l in enumerate(lines) if DECL.match(l)]
    if len(decls) != 1:
        return None, f"{len(decls)} scratch arrays"
    at, m = decls[0]
    name, size = m.group(2), int(m.group(3))
    lines[at] = f"{m.group(1)}[{2 * size}];"
    load = re.compile(r"\[" + name + r"(\+(\d+))?\]")
    k, state, removed = 0, 0, 0
    for i, l in enumerate(lines):
        if i == at:
            continue
        if state == 0:
            s = STORE.match(l)
            if s:
                if k % 2:
                    lines[i] = f"{s.group(1)}[{s.group(2)}+{size}]{s.group(3)}"
                state = 1
            elif BAR.match(l) or (name in l and "ld.shared" in l):
                return None, f"unexpected at line {i}: {l.strip()}"
        elif state == 1:
            if BAR.match(l):
                state = 2
        elif state == 2:
            if name in l and "ld.shared" in l:
                if k % 2:
                    lines[i] = load.sub(
                        lambda g: f"[{name}+{size + int(g.group(2) or 0)}]", l)
            elif BAR.match(l):
                lines[i] = "\t// bar.sync 0; (double-buffered scratch)"
                removed += 1
                k += 1
                state = 0
    if state != 0 or k % 2:
        return None, f"{k} exchanges, state {state}"
    return "\n".join(lines), f"{k} exchanges, {removed} barriers removed"


def main():
    args = sys.argv[1:]
    real = os.environ.get("REAL_PTXAS") or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    ptx = [a for a in args if a.endswith(".ptx")]
    if ptx:
        text = open(ptx[0]).read()
        patched, what = patch(text)
        sys.stderr.write(f"ptxas_double_buffer: {what}\n")
        if patched is not None:
            out = ptx[0] + ".db.ptx"
            open(out, "w").write(patched)
            args = [out if a == ptx[0] else a for a in args]
    sys.exit(subprocess.call([real] + args))


if __name__ == "__main__":
    main()
