#!/usr/bin/env python3
"""Summarizes repeated `mbt bench --json` runs as Markdown tables: for every model and
operation, the median over the runs of mbt's median ns per call, MuJoCo's, and the ratio
(each run's ratio is itself the median over alternating pairs of batches).

usage: bench/summarize.py RUN1.json [RUN2.json ...]
"""
import json
import statistics
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = [json.load(open(p)) for p in sys.argv[1:]]
    env = runs[0]["environment"]
    print("Build: %s, C flags `%s`, %s; CPU %s; MuJoCo %s; %d runs.\n" % (
        env["build_type"], env["c_flags"], env["compiler"], env["cpu"], env["mujoco"], len(runs)))
    targets = {}
    for mi, model in enumerate(runs[0]["runs"]):
        print("**%s** (%d bodies, nv = %d)\n" % (model["label"], model["bodies"], model["nv"]))
        chk = model.get("check")
        if chk:
            print("Cross-check over %d states: inverse dynamics %.1e, mass matrix %.1e, forward dynamics "
                  "%.1e (relative), body poses %.1e: %s.\n" % (
                      chk["states"], chk["inverse_dynamics_rel_err"], chk["mass_matrix_rel_err"],
                      chk["forward_dynamics_rel_err"], chk["body_pose_abs_err"],
                      "same numbers" if chk["ok"] else "MISMATCH"))
        print("| operation | mbt ns | MuJoCo ns | mbt/MuJoCo | target | heap allocs |")
        print("|---|---:|---:|---:|---:|---:|")
        for oi, op in enumerate(model["operations"]):
            ms = [r["runs"][mi]["operations"][oi]["mbt"]["median_ns"] for r in runs]
            js = [r["runs"][mi]["operations"][oi]["mujoco"]["median_ns"] for r in runs if "mujoco" in r["runs"][mi]["operations"][oi]]
            rs = [r["runs"][mi]["operations"][oi]["ratio"] for r in runs if "ratio" in r["runs"][mi]["operations"][oi]]
            al = sum(r["runs"][mi]["operations"][oi]["mbt"]["heap_allocations"] or 0 for r in runs)
            t = op.get("target")
            ratio = statistics.median(rs) if rs else None
            print("| %s | %.0f | %s | %s | %s | %d |" % (
                op["title"], statistics.median(ms), "%.0f" % statistics.median(js) if js else "-",
                "%.2f" % ratio if ratio is not None else "-",
                ("%.2f %s" % (t, "met" if ratio is not None and ratio <= t else "missed")) if t else "-", al))
        print()
        stages = model.get("stages", [])
        if stages:
            print("| stage (caches valid) | side | ns |")
            print("|---|---|---:|")
            for si, s in enumerate(stages):
                v = [r["runs"][mi]["stages"][si]["median_ns"] for r in runs]
                print("| %s | %s | %.0f |" % (s["name"], s["side"], statistics.median(v)))
            print()


if __name__ == "__main__":
    main()
