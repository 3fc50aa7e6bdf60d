#!/usr/bin/env python3
"""Summarizes `mbt bench --json` results as the Markdown tables of docs/benchmarks.md.

Files with the same build (C flags) and the same models are repeated runs: each number is
the median over them (mbt's median ns per call, MuJoCo's, and the ratio, which within a run
is the median over alternating pairs of batches). Runs of several builds on the same models
become one table with a column per build. A file with a scaling sweep gives the scaling
table.

usage: bench/summarize.py FILE.json [FILE.json ...]
"""
import collections
import json
import statistics
import sys


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def model_tables(groups):
    """groups: [(flags, [run files])] with the same models, in order."""
    first = groups[0][1][0]
    for mi, model in enumerate(first["runs"]):
        print("**%s** (%d bodies with the world, nv = %d%s)\n" % (
            model["label"], model["bodies"], model["nv"], ", floating" if model["floating"] else ""))
        chk = model.get("check")
        if chk:
            print("Cross-check over %d states: inverse dynamics %.1e, mass matrix %.1e, forward dynamics "
                  "%.1e (relative), body poses %.1e: %s.\n" % (
                      chk["states"], chk["inverse_dynamics_rel_err"], chk["mass_matrix_rel_err"],
                      chk["forward_dynamics_rel_err"], chk["body_pose_abs_err"],
                      "same numbers" if chk["ok"] else "MISMATCH"))
        has_mj = "mujoco" in model["operations"][0]
        print("| operation | " + " | ".join("`%s`%s" % (f, " (%d runs)" % len(rs) if len(rs) > 1 else "")
                                          for f, rs in groups) + " | target |")
        print("|---|" + "---|" * len(groups) + "---|")
        for oi, op in enumerate(model["operations"]):
            cells = []
            allocs = 0
            for _, rs in groups:
                ops = [r["runs"][mi]["operations"][oi] for r in rs]
                m = med(o["mbt"]["median_ns"] for o in ops if "mbt" in o)
                allocs += sum(o["mbt"]["heap_allocations"] or 0 for o in ops if "mbt" in o)
                if has_mj:
                    j = med(o["mujoco"]["median_ns"] for o in ops if "mujoco" in o)
                    q = med(o.get("ratio") for o in ops)
                    cells.append("%.0f / %.0f = **%.2f**" % (m, j, q) if q is not None else "-")
                else:
                    cells.append("%.0f" % m if m is not None else "-")
            t = op.get("target")
            print("| %s | %s | %s |" % (op["title"], " | ".join(cells), "%.2f" % t if t else "–"))
            if allocs:
                print("\n**%d heap allocations in timed calls of %s**\n" % (allocs, op["title"]))
        print()
        if has_mj:
            print("(mbt ns / MuJoCo ns = mbt/MuJoCo, ns per call, medians)\n")
        flags, rs = groups[0]
        stages = rs[0]["runs"][mi].get("stages", [])
        if stages:
            print("Stages, `%s` (caches valid, same state every call):\n" % flags)
            print("| stage | side | ns |")
            print("|---|---|---:|")
            for si, s in enumerate(stages):
                v = med(r["runs"][mi]["stages"][si]["median_ns"] for r in rs)
                print("| %s | %s | %.0f |" % (s["name"], s["side"], v))
            print()


def scaling_table(doc):
    sc = doc["scaling"]
    rows = collections.defaultdict(dict)
    for p in sc["points"]:
        rows[p["bodies"]][(p["operation"], p["topology"])] = p["ns_per_body"]
    keys = [("RNEA", "chain"), ("RNEA", "binary_tree"), ("ABA", "chain"), ("ABA", "binary_tree"),
            ("CRBA", "chain"), ("CRBA", "binary_tree")]
    print("Scaling, `%s`: ns per body (median ns per call / bodies)\n" % doc["environment"]["c_flags"])
    print("| bodies | RNEA chain | RNEA tree | ABA chain | ABA tree | CRBA chain | CRBA tree |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sorted(rows):
        print("| %d | %s |" % (n, " | ".join("%.0f" % rows[n][k] if k in rows[n] else "-" for k in keys)))
    print("\nmax/min of ns per body from 8 bodies up: " +
          ", ".join("%s %.2f" % (k.replace("_", " "), v) for k, v in sc["flatness_8_up"].items()) + "\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    docs = [json.load(open(p)) for p in sys.argv[1:]]
    env = docs[0]["environment"]
    print("Machine: %s; %s; MuJoCo %s.\n" % (env["cpu"], env["compiler"], env["mujoco"]))
    by_models = collections.OrderedDict()
    for d in docs:
        if d["runs"]:
            key = tuple((r["model"], r["floating"]) for r in d["runs"])
            by_models.setdefault(key, collections.OrderedDict()).setdefault(
                "%s %s" % (d["environment"]["build_type"], d["environment"]["c_flags"]), []).append(d)
    for key, groups in by_models.items():
        model_tables(list(groups.items()))
    for d in docs:
        if "scaling" in d:
            scaling_table(d)


if __name__ == "__main__":
    main()
