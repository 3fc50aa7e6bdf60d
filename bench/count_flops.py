#!/usr/bin/env python3
"""Counts the floating-point operations per call of mbt's (and MuJoCo's) algorithms by
instrumentation: the benchmark runs N untimed calls of one operation (`--count OP N`) under
valgrind's callgrind with per-instruction counts; every executed instruction is classified
from the objdump disassembly of its object (flops per instruction: add/sub/mul/div/sqrt/min/
max = 1 per lane, fused multiply-add = 2 per lane, sign/compare/convert/move = 0); two runs
(N1 and N2 calls) cancel the set-up, so flops per call = (F(N2) - F(N1)) / (N2 - N1).

The binary must be built for a CPU valgrind emulates (no AVX-512: not -march=native on such
a machine) and preferably without PIE (addresses of the executable are then absolute).

usage: bench/count_flops.py BUILD/mbt_bench [--models chain:10,chain:20,chain:30]
                            [--ops fk,vk,id,crba,aba,...] [--calls 100,300] [--json]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

FLOP_OPS = {"add": 1, "sub": 1, "mul": 1, "div": 1, "sqrt": 1, "min": 1, "max": 1,
            "addsub": 1, "hadd": 1, "hsub": 1}
_objdump_cache = {}


def instr_flops(mnemonic, operands):
    """Flops of one x86-64 instruction (AT&T syntax), 0 for non-arithmetic ones."""
    m = mnemonic
    if m.startswith("v"):
        m = m[1:]
    fma = re.match(r"^f(n?)m(add|sub|addsub|subadd)(132|213|231)(s|p)(d|s)$", m)
    if fma:
        scalar, prec = fma.group(4) == "s", fma.group(5)
        lanes = 1 if scalar else lanes_of(operands, prec)
        return 2 * lanes
    mm = re.match(r"^(addsub|hadd|hsub|add|sub|mul|div|sqrt|min|max)(s|p)(d|s)$", m)
    if mm:
        scalar, prec = mm.group(2) == "s", mm.group(3)
        return FLOP_OPS[mm.group(1)] * (1 if scalar else lanes_of(operands, prec))
    return 0


def lanes_of(operands, prec):
    width = 512 if "%zmm" in operands else 256 if "%ymm" in operands else 128
    return width // (64 if prec == "d" else 32)


def disassemble(path):
    """{address: flops} of every arithmetic instruction of an object file."""
    if path in _objdump_cache:
        return _objdump_cache[path]
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        mt = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not mt:
            continue
        f = instr_flops(mt.group(2), mt.group(3))
        if f:
            table[int(mt.group(1), 16)] = f
    _objdump_cache[path] = table
    return table


def symbols(path):
    """{name: address} of the functions of an object (static and dynamic symbols)."""
    syms = {}
    for flag in (["-D"], []):
        r = subprocess.run(["nm", "--defined-only"] + flag + [path], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwWiI":
                syms.setdefault(p[2].split("@")[0], int(p[0], 16))
    return syms


def load_base(obj, fmin):
    """Runtime address minus file address of a shared object (0 for a non-PIE executable):
    the most common difference between a function's lowest executed address and its symbol."""
    syms = symbols(obj)
    diffs = collections.Counter()
    for fn, a in fmin.items():
        if fn in syms:
            diffs[a - syms[fn]] += 1
    return diffs.most_common(1)[0][0] if diffs else 0


def flops_of_run(bench, model, op, calls, extra):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--dump-line=no",
               "--compress-pos=no", "--compress-strings=no", "--callgrind-out-file=" + out,
               bench, model, "--count", op, str(calls)] + extra
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("failed: %s\n%s" % (" ".join(cmd), r.stderr[-2000:]))
        counts, fmin = parse_callgrind_uncompressed(out)
    per_obj = {}
    for obj, ctr in counts.items():
        if not os.path.isfile(obj):
            continue
        table = disassemble(obj)
        base = load_base(obj, fmin[obj])
        per_obj[os.path.basename(obj)] = sum(c * table.get(a - base, 0) for a, c in ctr.items())
    return per_obj


def parse_callgrind_uncompressed(path):
    """As parse_callgrind, for --compress-strings=no (names written out every time)."""
    counts = collections.defaultdict(collections.Counter)
    fmin = collections.defaultdict(dict)
    ob = fn = None
    skip_next = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if skip_next:
                skip_next = False
                continue
            if line.startswith("ob="):
                ob = line[3:]
                continue
            if line.startswith("fn="):
                fn = line[3:]
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            m = re.match(r"^(0x[0-9a-f]+) (\d+)$", line)
            if m and ob is not None:
                a, c = int(m.group(1), 16), int(m.group(2))
                counts[ob][a] += c
                if fn is not None:
                    prev = fmin[ob].get(fn)
                    fmin[ob][fn] = a if prev is None else min(prev, a)
    return counts, fmin


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench")
    ap.add_argument("--models", default="chain:10,chain:20,chain:30")
    ap.add_argument("--ops", default="fk,pk,vk,id,id_forces,crba,aba,crba_chol,stage:rnea,stage:crba,"
                    "stage:chol,mj:fk,mj:pk,mj:vk,mj:id,mj:crba,mj:aba,mj:crba_chol")
    ap.add_argument("--calls", default="100,300")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    n1, n2 = (int(x) for x in a.calls.split(","))
    results = {}
    for model in a.models.split(","):
        for op in a.ops.split(","):
            f1 = flops_of_run(a.bench, model, op, n1, [])
            f2 = flops_of_run(a.bench, model, op, n2, [])
            per_call = {k: (f2.get(k, 0) - f1.get(k, 0)) / (n2 - n1) for k in set(f1) | set(f2)}
            per_call = {k: v for k, v in per_call.items() if abs(v) > 1e-9}
            results.setdefault(model, {})[op] = per_call
            if not a.json:
                total = sum(per_call.values())
                parts = ", ".join("%s %.0f" % (k, v) for k, v in sorted(per_call.items()))
                print("%-10s %-12s %10.0f flops/call  (%s)" % (model, op, total, parts), flush=True)
    if a.json:
        json.dump(results, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
