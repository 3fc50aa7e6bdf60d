#!/usr/bin/python3
"""bench_sweep.py: rollouts per second of `mbt sweep` at 1 and 2 threads and at 1 and 2 MPI ranks.

Layouts: 1 process of 1 and of 2 threads, `mpirun -n 2` of 1 and of 2 threads per rank.

A Monte Carlo sweep of --runs UR5 simulations (PD control, rk4 at 1 ms, --duration s each,
varying the initial pose, the gain and the payload) is run in each layout, the layouts
alternating --reps times so that a change of the shared machine's load reaches them alike.
Printed per layout: the median rollouts per second, from the sweep's own wall time (start of
the runs to the sorted file; what a cluster job would see once started) and end to end
(including the process and, for mpirun, the MPI start-up), the speed-up over 1 process and
1 thread, the cores the layout had (CPU time of the processes over the end-to-end time) and
its CPU time against the 1-thread layout's (on a shared machine the load changes the cores
a layout gets, hardly its CPU time: with K free cores the speed-up would be about K over
that ratio). Each layout's results file is compared with the 1-thread one (wall times aside).

  bench/bench_sweep.py [--mbt build/mbt] [--runs 128] [--duration 1.0] [--reps 5]
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def spec(runs, duration):
    return {
        "model": os.path.join(HERE, "..", "models", "ur5.urdf"),
        "duration": duration,
        "integrator": "rk4",
        "dt": 0.001,
        "sampling": "monte_carlo",
        "runs": runs,
        "seed": 3,
        "set": {"kd": 5},
        "vary": {
            "q0.shoulder_lift_joint": {"uniform": [-1.5, -0.5]},
            "kp": {"uniform": [20, 300]},
            "mass.wrist_3_link": {"uniform": [0.1, 3.0]},
        },
    }


def layouts(mbt):
    out = [("1 process x 1 thread", [mbt, "sweep", "{spec}", "--threads", "1"]),
           ("1 process x 2 threads", [mbt, "sweep", "{spec}", "--threads", "2"])]
    mpirun = shutil.which("mpirun")
    if mpirun:
        root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        for threads in ("1", "2"):
            out.append(("mpirun -n 2 x %s thread%s" % (threads, "s" if threads != "1" else ""),
                        [mpirun] + root + ["-n", "2", "--oversubscribe", mbt, "sweep", "{spec}", "--threads", threads]))
    else:
        print("bench_sweep: mpirun not found (apt-get install openmpi-bin libopenmpi-dev): no MPI layout")
    return out


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(cmd, spec_path, out_path):
    if os.path.exists(out_path):
        os.remove(out_path)
    argv = [a.replace("{spec}", spec_path) for a in cmd] + ["--out", out_path]
    c0, t0 = children_cpu(), time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True)
    t = time.monotonic() - t0
    cpu = children_cpu() - c0
    if p.returncode != 0:
        sys.exit("bench_sweep: %s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr[:600]))
    m = re.search(r"([0-9.]+) s wall", p.stdout)
    if not m:
        sys.exit("bench_sweep: no wall time in: %s" % p.stdout)
    return float(m.group(1)), t, cpu / t, cpu


def without_wall(path):
    with open(path) as f:
        return [line.rsplit(",", 1)[0] for line in f]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mbt", default=os.path.join(HERE, "..", "build", "mbt"))
    ap.add_argument("--runs", type=int, default=128)
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mbt_bench_sweep.")
    try:
        spec_path = os.path.join(tmp, "sweep.json")
        with open(spec_path, "w") as f:
            json.dump(spec(a.runs, a.duration), f)
        lay = layouts(os.path.abspath(a.mbt))
        res = {name: [] for name, _ in lay}
        for _ in range(a.reps):
            for i, (name, cmd) in enumerate(lay):
                res[name].append(run_once(cmd, spec_path, os.path.join(tmp, "out%d.csv" % i)))
        ref = without_wall(os.path.join(tmp, "out0.csv"))
        print("mbt sweep: %d UR5 runs of %g s (rk4, 1 ms), median of %d, load average %.1f" %
              (a.runs, a.duration, a.reps, os.getloadavg()[0]))
        base = statistics.median(r[0] for r in res[lay[0][0]])
        base_cpu = statistics.median(r[3] for r in res[lay[0][0]])
        for i, (name, _) in enumerate(lay):
            sweep_wall = statistics.median(r[0] for r in res[name])
            end_to_end = statistics.median(r[1] for r in res[name])
            cores = statistics.median(r[2] for r in res[name])
            cpu = statistics.median(r[3] for r in res[name])
            same = without_wall(os.path.join(tmp, "out%d.csv" % i)) == ref
            print("  %-24s %7.1f runs/s (%.2fx), end to end %7.1f runs/s, %.2f s; cores used %.2f, "
                  "CPU %.2f s (%.2f of 1 thread's); file %s" %
                  (name, a.runs / sweep_wall, base / sweep_wall, a.runs / end_to_end, end_to_end, cores, cpu,
                   cpu / base_cpu, "same" if same else "DIFFERS"))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
