"""Runs blk.scan kernels lowered by convert-blk-to-nvvm on a lockstep SIMT
interpreter of the ops they use (all threads of a program, warp shuffles,
barriers, shared memory) and compares every result with a sequential scan,
for forward and reverse scans, 1-D and 2-D blocks, replicated lanes and
warps, and a combine that is associative but not commutative (the earliest
nonzero element). It also reports a thread touching a shared-memory slot
that another thread wrote, or writing one that another thread touched, with
no barrier in between (writes of the same value by replicas, which the
existing broadcast lowering makes, are not counted), and a barrier reached
under a partial mask. Without a GPU this checks what compute-sanitizer's
racecheck/synccheck and the differential suite check on one.

Prints one line per failing configuration and "N configurations, M failed".
"""
import random
import re
import subprocess
import sys

class Op:
    def __init__(s, results, name, operands, attrs, regions, types):
        s.results, s.name, s.operands, s.attrs, s.regions, s.types = results, name, operands, attrs, regions, types

OPRE = re.compile(r'^\s*(?:(%[\w]+(?::\d+)?) = )?"([\w.]+)"\(([^)]*)\)(.*)$')
def parse_ops(lines, i):
    ops = []
    while i < len(lines):
        line = lines[i]
        st = line.strip()
        if st.startswith('}'):
            return ops, i
        if st.startswith('^bb'):
            i += 1; continue
        m = OPRE.match(line)
        if not m:
            raise Exception('cannot parse: ' + line)
        res, name, operands, rest = m.groups()
        operands = [o.strip() for o in operands.split(',') if o.strip()]
        regions = []
        i += 1
        if rest.rstrip().endswith('({'):
            while True:
                args = []
                if i < len(lines) and lines[i].strip().startswith('^bb'):
                    args = re.findall(r'(%[\w]+):', lines[i])
                    i += 1
                body, i = parse_ops(lines, i)
                regions.append((args, body))
                st = lines[i].strip()
                if st.startswith('}, {'):
                    i += 1; continue
                rest = st  # "}) : types"
                i += 1
                break
        ops.append(Op([res] if res else [], name, operands, rest, regions, rest))
    return ops, i

def mask(v, bits):
    v &= (1 << bits) - 1
    return v
def signed(v, bits):
    v = mask(v, bits)
    return v - (1 << bits) if v >> (bits - 1) else v

def restype(op):
    m = re.search(r'-> \(?([\w!<>.]+)', op.types)
    return m.group(1) if m else None
def bits_of(t):
    if t is None: return 64
    m = re.match(r'i(\d+)', t)
    if m: return int(m.group(1))
    return 32 if t == 'f32' else 64

class Machine:
    def __init__(s, T, mem):
        s.T = T; s.mem = mem; s.smem = {}; s.epoch = 0
        s.access = {}  # addr -> list of (thread, kind, epoch)
        s.errors = []
    def run(s, ops, env, active):
        for op in ops:
            s.step(op, env, active)
    def val(s, env, name):
        return env[name]
    def step(s, op, env, active):
        T = s.T
        n = op.name
        get = lambda k: env[op.operands[k]]
        def setr(vals):
            r = op.results[0]
            old = env.get(r, [None] * T)
            env[r] = [vals[t] if active[t] else old[t] for t in range(T)]
        if n == 'arith.constant':
            m = re.search(r'value = ([-\w.+]+)', op.attrs)
            v = m.group(1)
            if v in ('true', 'false'): v = 1 if v == 'true' else 0
            elif re.match(r'^-?\d+$', v): v = int(v)
            else: v = float(v)
            setr([v] * T)
        elif n == 'nvvm.read.ptx.sreg.tid.x':
            setr(list(range(T)))
        elif n in ('arith.addi', 'arith.subi', 'arith.muli', 'arith.andi', 'arith.ori', 'arith.xori', 'arith.shli', 'arith.shrui', 'arith.maxsi'):
            b = bits_of(restype(op)); a, c = get(0), get(1)
            f = {'arith.addi': lambda x, y: x + y, 'arith.subi': lambda x, y: x - y, 'arith.muli': lambda x, y: x * y,
                 'arith.andi': lambda x, y: mask(x, b) & mask(y, b), 'arith.ori': lambda x, y: mask(x, b) | mask(y, b),
                 'arith.xori': lambda x, y: mask(x, b) ^ mask(y, b), 'arith.shli': lambda x, y: x << y,
                 'arith.shrui': lambda x, y: mask(x, b) >> y, 'arith.maxsi': lambda x, y: max(signed(x, b), signed(y, b))}[n]
            setr([signed(f(a[t], c[t]), b) if active[t] else None for t in range(T)])
        elif n in ('arith.addf', 'arith.maximumf'):
            a, c = get(0), get(1)
            f = (lambda x, y: x + y) if n == 'arith.addf' else (lambda x, y: max(x, y))
            setr([f(a[t], c[t]) if active[t] else None for t in range(T)])
        elif n in ('arith.trunci', 'arith.extui', 'arith.extsi'):
            m = re.search(r'\((\w+)\) -> (\w+)', op.types); src, dst = bits_of(m.group(1)), bits_of(m.group(2))
            a = get(0)
            if n == 'arith.extui': setr([mask(a[t], src) if active[t] else None for t in range(T)])
            else: setr([signed(a[t], dst if n == 'arith.trunci' else src) if active[t] else None for t in range(T)])
        elif n == 'arith.cmpi':
            p = int(re.search(r'predicate = (\d+)', op.attrs).group(1))
            b = bits_of(re.search(r'\((\w+),', op.types).group(1))
            a, c = get(0), get(1)
            def cmp(x, y):
                x, y = signed(x, b), signed(y, b)
                return [x == y, x != y, x < y, x <= y, x > y, x >= y][p]
            assert p <= 5
            setr([int(cmp(a[t], c[t])) if active[t] else None for t in range(T)])
        elif n == 'arith.select':
            c, a, d = get(0), get(1), get(2)
            setr([(a[t] if c[t] else d[t]) if active[t] else None for t in range(T)])
        elif n == 'nvvm.shfl.sync':
            assert all(active), 'divergent shuffle'
            kind = re.search(r'shfl_kind (\w+)', op.attrs).group(1)
            v, off, c = get(1), get(2), get(3)
            out = []
            for t in range(T):
                lane = t % 32; base = t - lane; o = off[t]
                if kind == 'up': j = lane - o; j = lane if j < 0 else j
                elif kind == 'down': j = lane + o; j = lane if j > 31 else j
                elif kind == 'idx': j = o
                else: raise Exception(kind)
                out.append(v[base + j])
            setr(out)
        elif n == 'nvvm.barrier0':
            if not all(active): s.errors.append('barrier under a partial mask')
            s.epoch += 1
        elif n == 'llvm.mlir.addressof':
            setr([('smem', 0)] * T)
        elif n == 'llvm.getelementptr':
            et = re.search(r'elem_type = (\w+)', op.attrs).group(1)
            size = {'i1': 1, 'i8': 1, 'i16': 2, 'f16': 2, 'bf16': 2, 'i32': 4, 'f32': 4, 'i64': 8, 'f64': 8}[et]
            base = get(0)
            if len(op.operands) > 1:
                idx = get(1)
            else:
                k = int(re.search(r'rawConstantIndices = array<i32: (-?\d+)>', op.attrs).group(1)); idx = [k] * T
            setr([(base[t][0], base[t][1] + idx[t] * size) if active[t] else None for t in range(T)])
        elif n in ('llvm.store', 'llvm.load'):
            ptr = get(1) if n == 'llvm.store' else get(0)
            for t in range(T):
                if not active[t]: continue
                a = ptr[t][1]
                wv = get(0)[t] if n == 'llvm.store' else None
                for (u, kind, ep, val) in s.access.get(a, []):
                    if ep == s.epoch and u != t and (kind == 'w' or n == 'llvm.store'):
                        same = kind == 'w' and n == 'llvm.store' and val == wv
                        s.errors.append(('same-value ' if same else '') + 'race at %d: thread %d %s, thread %d %s' % (a, u, kind, t, n))
                s.access.setdefault(a, []).append((t, 'w' if n == 'llvm.store' else 'r', s.epoch, wv))
            if n == 'llvm.store':
                v = get(0)
                for t in range(T):
                    if active[t]: s.smem[ptr[t][1]] = v[t]
            else:
                setr([s.smem.get(ptr[t][1], 'UNINIT') if active[t] else None for t in range(T)])
        elif n == 'blk.addptr':
            p, o = get(0), get(1)
            setr([(p[t][0], p[t][1] + o[t]) if active[t] else None for t in range(T)])
        elif n == 'blk.load':
            p = get(0)
            setr([s.mem[p[t][0]][p[t][1]] if active[t] else None for t in range(T)])
        elif n == 'blk.store':
            p, v = get(0), get(1)
            for t in range(T):
                if active[t]:
                    key = (p[t][0], p[t][1])
                    if key in s.stored and s.stored[key] != v[t]:
                        s.errors.append('replicas disagree at %s: %s vs %s' % (key, s.stored[key], v[t]))
                    s.stored[key] = v[t]
                    s.mem[p[t][0]][p[t][1]] = v[t]
        elif n == 'scf.if':
            c = get(0)
            then_active = [active[t] and bool(c[t]) for t in range(T)]
            s.run(op.regions[0][1], env, then_active)
        elif n == 'scf.for':
            lb, ub, st = get(0), get(1), get(2)
            inits = [env[o] for o in op.operands[3:]]
            args, body = op.regions[0]
            iv = list(lb); carried = [list(x) for x in inits]
            while True:
                act = [active[t] and signed(iv[t], 32) < signed(ub[t], 32) for t in range(T)]
                if not any(act): break
                env[args[0]] = list(iv)
                for a, c in zip(args[1:], carried): env[a] = list(c)
                s.run(body, env, act)
                y = s.last_yield
                carried = [[env[y[k]][t] if act[t] else carried[k][t] for t in range(T)] for k in range(len(carried))]
                iv = [iv[t] + st[t] if act[t] else iv[t] for t in range(T)]
            for r, c in zip(op.results, carried):
                pass
            if op.results:
                env[op.results[0]] = carried[0]
        elif n == 'scf.yield':
            s.last_yield = op.operands
        elif n in ('func.return', 'llvm.mlir.global'):
            pass
        else:
            raise Exception('unsupported op ' + n)

def run_kernel(mlir_text, warps, inputs):
    out = subprocess.run(['blockjit-opt', '-', '--blk-assign-layouts=num-warps=%d' % warps,
                          '--convert-blk-to-nvvm', '--mlir-print-op-generic'], input=mlir_text, capture_output=True, text=True)
    if out.returncode: raise Exception(out.stderr)
    lines = out.stdout.split('\n')
    fi = next(i for i, l in enumerate(lines) if '"func.func"' in l)
    argl = lines[fi + 1]
    args = re.findall(r'(%[\w]+):', argl)
    body, _ = parse_ops(lines, fi + 2)
    T = 32 * warps
    mem = {k: list(v) for k, v in enumerate(inputs)}
    m = Machine(T, mem); m.stored = {}
    env = {a: [(k, 0)] * T for k, a in enumerate(args)}
    m.run(body, env, [True] * T)
    return m.mem, m.errors



def combine_region(ty, kind):
    if kind == 'first':
        return f'''  ^bb0(%l: {ty}, %rr: {ty}):
    %zero = arith.constant 0 : {ty}
    %nz = arith.cmpi ne, %l, %zero : {ty}
    %k = arith.select %nz, %l, %rr : {ty}
    blk.scan_return %k : {ty}'''
    if kind == 'add':
        op = 'arith.addf' if ty.startswith('f') else 'arith.addi'
        return f'''  ^bb0(%l: {ty}, %rr: {ty}):
    %k = {op} %l, %rr : {ty}
    blk.scan_return %k : {ty}'''

def kernel(shape, ty, kind, axis, reverse):
    N = 1
    for d in shape: N *= d
    tshape = 'x'.join(map(str, shape))
    rev = ' reverse' if reverse else ''
    # linear offsets via make_range of N, reshaped via expand/broadcast is
    # complex: use a 1-D range for 1-D, and row*C + col for 2-D.
    if len(shape) == 1:
        off = f'''  %off = blk.make_range 0 to {N} : tensor<{N}xi32>'''
    else:
        R, C = shape
        off = f'''  %rows = blk.make_range 0 to {R} : tensor<{R}xi32>
  %cols = blk.make_range 0 to {C} : tensor<{C}xi32>
  %cC = arith.constant {C} : i32
  %s = blk.splat %cC : i32 -> tensor<{R}x1xi32>
  %r2 = blk.expand_dims %rows axis = 1 : tensor<{R}xi32> -> tensor<{R}x1xi32>
  %roff = arith.muli %r2, %s : tensor<{R}x1xi32>
  %c2 = blk.expand_dims %cols axis = 0 : tensor<{C}xi32> -> tensor<1x{C}xi32>
  %rb = blk.broadcast %roff : tensor<{R}x1xi32> -> tensor<{tshape}xi32>
  %cb = blk.broadcast %c2 : tensor<1x{C}xi32> -> tensor<{tshape}xi32>
  %off = arith.addi %rb, %cb : tensor<{tshape}xi32>'''
    return f'''func.func @k(%in: !blk.ptr<{ty}>, %out: !blk.ptr<{ty}>) {{
{off}
  %pi = blk.splat %in : !blk.ptr<{ty}> -> tensor<{tshape}x!blk.ptr<{ty}>>
  %a = blk.addptr %pi, %off : tensor<{tshape}x!blk.ptr<{ty}>>, tensor<{tshape}xi32>
  %po = blk.splat %out : !blk.ptr<{ty}> -> tensor<{tshape}x!blk.ptr<{ty}>>
  %b = blk.addptr %po, %off : tensor<{tshape}x!blk.ptr<{ty}>>, tensor<{tshape}xi32>
  %x = blk.load %a : tensor<{tshape}x!blk.ptr<{ty}>>
  %y = blk.scan %x axis = {axis}{rev} : tensor<{tshape}x{ty}> {{
{combine_region(ty, kind)}
  }}
  blk.store %b, %y : tensor<{tshape}x!blk.ptr<{ty}>>
  return
}}
'''

def ref(data, shape, kind, axis, reverse):
    out = list(data)
    if len(shape) == 1: shape2 = (1, shape[0]); axis2 = 1
    else: shape2 = shape; axis2 = axis
    R, C = shape2
    lines = range(C) if axis2 == 0 else range(R)
    L = R if axis2 == 0 else C
    for ln in lines:
        idx = [(i * C + ln) if axis2 == 0 else (ln * C + i) for i in range(L)]
        if reverse: idx = idx[::-1]
        acc = None
        for i in idx:
            x = data[i]
            if acc is None: acc = x
            elif kind == 'add': acc = acc + x
            else: acc = acc if acc != 0 else x
            out[i] = acc
    return out

fails = 0; runs = 0
random.seed(1)
for warps, shapes in [(1, [((N,), 0) for N in [1, 16, 64, 256]] + [((4, 256), 1), ((4, 8), 1)]),
                      (4, [((N,), 0) for N in [1, 16, 64, 256, 2048]] + [((2, 2048), 1), ((64, 1), 0), ((16, 64), 0), ((16, 64), 1), ((4, 8), 0), ((1, 64), 1)]),
                      (8, [((512,), 0), ((2, 1024), 1)])]:
    for (shape, axis) in shapes:
        for ty, kind in [('i32', 'first'), ('i64', 'first'), ('f32', 'add')]:
            for reverse in [False, True]:
                N = 1
                for d in shape: N *= d
                if ty == 'f32': data = [float(random.randint(-50, 50)) for _ in range(N)]
                else: data = [random.randint(-5, 5) * (random.random() < 0.15) for _ in range(N)]
                text = kernel(shape, ty, kind, axis, reverse)
                mem, errors = run_kernel(text, warps, [data, [None] * N])
                want = ref(data, shape, kind, axis, reverse)
                runs += 1
                errors = [e for e in errors if not e.startswith('same-value')]
                if mem[1] != want or errors:
                    fails += 1
                    print('FAIL', warps, shape, axis, ty, kind, reverse, errors[:3])
                    bad = [i for i in range(N) if mem[1][i] != want[i]][:5]
                    print('  at', bad, [mem[1][i] for i in bad], [want[i] for i in bad])
print('%d configurations, %d failed' % (runs, fails))
