#!/usr/bin/env python3
"""Per-call overhead of the Python package over the C call (a benchmark, not a test).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [BUILD_DIR] [MODEL]
    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py --instructions [BUILD_DIR]

Times inverse dynamics with gravity (mbt_calc_inverse_dynamics_with_gravity, tau = M·v̇ + C·v −
tau_g) on one model and state, in one process, round-robin so that every variant sees the
same machine load:
  C              the C function in a C loop (libmbt_pybench.so, loaded with ctypes)
  mbt out=       ctx.inverse_dynamics(vdot, out=tau): no allocation
  mbt new        ctx.inverse_dynamics(vdot): returns a new array
  ctypes         the C function through a plain ctypes call, arguments prepared once
                 (argtypes c_void_p, raw pointers): the least a ctypes binding can do
  ctypes+numpy   the same with numpy.ctypeslib.ndpointer argument types (checked arrays)
Each number is the median over the repeats of (time of a timeit loop / calls); the Python
numbers include timeit's loop (one `for` iteration per call). Overhead = Python − C.
A second table does the same for ctx.inverse_dynamics_derivatives (tau, ∂tau/∂q, ∂tau/∂v and
M into a tuple of out= arrays, or four new arrays) against its C loop (--no-derivatives
leaves it out).

--instructions counts instructions per call instead (valgrind's callgrind, repeatable on a
loaded machine): each variant runs N1 and N2 times in its own process under callgrind, and
(count(N2) − count(N1)) / (N2 − N1) is its cost per call, loop included.
"""
import re
import subprocess
import ctypes
import os
import statistics
import sys
import timeit

import numpy as np

import mbt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class UrdfResult(ctypes.Structure):
    """mbt_urdf_result (include/mbt/urdf.h)."""
    _fields_ = [("tree", ctypes.c_void_p), ("status", ctypes.c_int),
                ("error", ctypes.c_char * 1024), ("num_warnings", ctypes.c_int),
                ("warnings", ctypes.c_void_p), ("num_joints", ctypes.c_int),
                ("joint_friction", ctypes.c_void_p), ("joint_effort", ctypes.c_void_p),
                ("robot_name", ctypes.c_char_p)]


def c_side(build, model, q, v):
    lib = ctypes.CDLL(os.path.join(build, "libmbt.so"))
    loop = ctypes.CDLL(os.path.join(build, "libmbt_pybench.so"))
    r = UrdfResult()
    if lib.mbt_urdf_load_file(model.encode(), 0, ctypes.byref(r)) != 0:
        raise SystemExit(r.error.decode())
    tree = r.tree
    lib.mbt_context_create.restype = ctypes.c_void_p
    lib.mbt_context_create.argtypes = [ctypes.c_void_p]
    ctx = lib.mbt_context_create(tree)
    for name, x in (("mbt_context_set_q", q), ("mbt_context_set_v", v)):
        fn = getattr(lib, name)
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        fn(ctx, x.ctypes.data, len(x))
    loop.mbt_pybench_inverse_dynamics_loop.restype = ctypes.c_double
    loop.mbt_pybench_inverse_dynamics_loop.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_long]
    loop.mbt_pybench_id_derivatives_loop.restype = ctypes.c_double
    loop.mbt_pybench_id_derivatives_loop.argtypes = [ctypes.c_void_p] * 7 + [ctypes.c_long]
    return lib, loop, tree, ctx


def make_variants(ctx, vdot, out, raw, checked, ctree, cctx, vp, tp, tau_c):
    f = ctx.inverse_dynamics
    return {
        "mbt out=": timeit.Timer("f(vdot, out=out)", globals={"f": f, "vdot": vdot, "out": out}),
        "mbt new": timeit.Timer("f(vdot)", globals={"f": f, "vdot": vdot}),
        "ctypes": timeit.Timer("raw(t, c, vp, tp)",
                               globals={"raw": raw, "t": ctree, "c": cctx, "vp": vp, "tp": tp}),
        "ctypes+numpy": timeit.Timer("checked(t, c, vdot, tau)", globals={
            "checked": checked, "t": ctree, "c": cctx, "vdot": vdot, "tau": tau_c}),
    }


def instructions(build, model):
    """Instructions per call of each variant, from two callgrind runs."""
    def count(name, n):
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
               os.path.abspath(__file__), build, model, "--run", name, str(n)]
        err = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
        return int(re.search(r"Collected : (\d+)", err).group(1))
    n1, n2 = 2_000, 22_000
    per = {}
    for name in ["C", "mbt out=", "mbt new", "ctypes", "ctypes+numpy", "C deriv", "deriv out=", "deriv new"]:
        per[name] = (count(name, n2) - count(name, n1)) / (n2 - n1)
    print(f"model {os.path.basename(model)}, instructions per call (callgrind, {n2} − {n1} calls):")
    print(f"{'call':<14}{'instr/call':>12}{'over C':>10}")
    for name, k in per.items():
        base = per["C deriv"] if "deriv" in name else per["C"]
        over = "" if name.startswith("C") else f"{k - base:10.0f}"
        print(f"{name:<14}{k:12.0f}{over}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--instructions":
        build = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build")
        instructions(build, os.path.join(ROOT, "models", "ur5.urdf"))
        return
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    model = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "models", "ur5.urdf")
    rng = np.random.default_rng(1)
    tree = mbt.load_urdf(model)
    ctx = tree.context()
    ctx.q = rng.uniform(-2, 2, tree.nq)
    ctx.v = rng.uniform(-1, 1, tree.nv)
    vdot = rng.uniform(-1, 1, tree.nv)
    out = np.empty(tree.nv)
    lib, loop, ctree, cctx = c_side(build, model, ctx.q.copy(), ctx.v.copy())

    raw = lib.mbt_calc_inverse_dynamics_with_gravity
    raw.argtypes = [ctypes.c_void_p] * 4
    raw.restype = ctypes.c_int
    checked = ctypes.CDLL(os.path.join(build, "libmbt.so")).mbt_calc_inverse_dynamics_with_gravity
    arr = np.ctypeslib.ndpointer(dtype=np.float64, ndim=1, flags="C_CONTIGUOUS")
    checked.argtypes = [ctypes.c_void_p, ctypes.c_void_p, arr, arr]
    checked.restype = ctypes.c_int
    tau_c = np.empty(tree.nv)
    vp, tp = vdot.ctypes.data, tau_c.ctypes.data

    # Same numbers from every path before timing anything.
    raw(ctree, cctx, vp, tp)
    assert np.array_equal(tau_c, ctx.inverse_dynamics(vdot)), "ctypes and mbt disagree"

    variants = make_variants(ctx, vdot, out, raw, checked, ctree, cctx, vp, tp, tau_c)
    if len(sys.argv) > 3 and sys.argv[3] == "--run":
        name, n = sys.argv[4], int(sys.argv[5])
        outs = (np.empty(tree.nv), np.empty((tree.nv, tree.nv)), np.empty((tree.nv, tree.nv)),
                np.empty((tree.nv, tree.nv)))
        if name == "C":
            loop.mbt_pybench_inverse_dynamics_loop(ctree, cctx, vp, tp, n)
        elif name == "C deriv":
            loop.mbt_pybench_id_derivatives_loop(ctree, cctx, vp, *(a.ctypes.data for a in outs), n)
        elif name == "deriv out=":
            f = ctx.inverse_dynamics_derivatives
            f(vdot, out=outs)       # the work memory, made at the first call, outside the count's difference
            timeit.Timer("f(vdot, out=outs)", globals={"f": f, "vdot": vdot, "outs": outs}).timeit(n)
        elif name == "deriv new":
            f = ctx.inverse_dynamics_derivatives
            timeit.Timer("f(vdot)", globals={"f": f, "vdot": vdot}).timeit(n)
        else:
            variants[name].timeit(n)
        return
    n, repeats = 100_000, 15
    times = {k: [] for k in ["C"] + list(variants)}
    for _ in range(repeats):
        times["C"].append(loop.mbt_pybench_inverse_dynamics_loop(ctree, cctx, vp, tp, n))
        for name, timer in variants.items():
            times[name].append(timer.timeit(n) / n * 1e9)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"model {os.path.basename(model)} (nv = {tree.nv}), {repeats} x {n} calls, medians:")
    print_table(med)
    if "--no-derivatives" not in sys.argv:
        derivatives(loop, ctree, cctx, ctx, vdot, n // 10, repeats)


def print_table(med):
    print(f"{'call':<14}{'ns/call':>10}{'over C (ns)':>14}")
    for name, t in med.items():
        over = "" if name == "C" else f"{t - med['C']:14.0f}"
        print(f"{name:<14}{t:10.0f}{over}")


def derivatives(loop, ctree, cctx, ctx, vdot, n, repeats):
    """The same comparison for ctx.inverse_dynamics_derivatives: four outputs (tau, dtau_dq,
    dtau_dv, M) written into a tuple of arrays, or four new arrays."""
    nv = len(vdot)
    outs = (np.empty(nv), np.empty((nv, nv)), np.empty((nv, nv)), np.empty((nv, nv)))
    c_outs = tuple(np.empty_like(a) for a in outs)
    f = ctx.inverse_dynamics_derivatives
    f(vdot, out=outs)
    loop.mbt_pybench_id_derivatives_loop(ctree, cctx, vdot.ctypes.data, *(a.ctypes.data for a in c_outs), 1)
    assert all(np.array_equal(a, b) for a, b in zip(outs, c_outs)), "ctypes and mbt disagree"
    variants = {"mbt out=": timeit.Timer("f(vdot, out=outs)", globals={"f": f, "vdot": vdot, "outs": outs}),
                "mbt new": timeit.Timer("f(vdot)", globals={"f": f, "vdot": vdot})}
    times = {k: [] for k in ["C"] + list(variants)}
    for _ in range(repeats):
        times["C"].append(loop.mbt_pybench_id_derivatives_loop(
            ctree, cctx, vdot.ctypes.data, *(a.ctypes.data for a in c_outs), n))
        for name, timer in variants.items():
            times[name].append(timer.timeit(n) / n * 1e9)
    print(f"inverse_dynamics_derivatives, {repeats} x {n} calls, medians:")
    print_table({k: statistics.median(v) for k, v in times.items()})


if __name__ == "__main__":
    main()
