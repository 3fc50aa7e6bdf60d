#!/usr/bin/env python3
"""Worked example: a UR5 tracking a joint-space sine with computed-torque control.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/ur5_tracking.py [OUT.png]

Loads the arm, checks the equations of motion at one state, simulates 2 s with a Python
controller tau = M(q)·(q̈_d + Kd·ė + Kp·e) + C(q,v)·v − tau_g(q), records the tracking error
with an observer, and plots q and q_d with matplotlib if it is installed.
"""
import os
import sys

import numpy as np

import mbt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(png=None):
    tree = mbt.load_urdf(os.path.join(ROOT, "models", "ur5.urdf"))
    print(tree)                                   # <mbt.Tree 'ur5': 11 bodies, 10 joints, nq=6, nv=6>
    ctx = tree.context()
    ctx.q = [0.0, -1.2, 1.5, -0.3, 0.4, 0.0]
    ctx.v = [0.2, -0.1, 0.3, 0.0, 0.1, -0.2]

    # The equations of motion at this state: inverse dynamics = M·v̇ + C·v − tau_g.
    vdot = np.array([1.0, 0.5, -0.5, 0.2, 0.0, 0.3])
    M, Cv, tau_g = ctx.mass_matrix(), ctx.bias_term(), ctx.gravity_forces()
    tau = ctx.inverse_dynamics(vdot)
    print("|ID − (M·v̇ + C·v − tau_g)| =", np.max(np.abs(tau - (M @ vdot + Cv - tau_g))))
    print("tool0 position:", ctx.body_pose("tool0")[:3, 3])

    # Computed-torque tracking of q_d(t) = q0 + a·sin(ω t).
    q0, a, w = ctx.q.copy(), np.full(6, 0.3), 2.0
    kp, kd = 100.0, 20.0
    model = ctx.copy()                            # the controller's own context

    def controller(t, q, v):
        qd, vd, ad = q0 + a * np.sin(w * t), a * w * np.cos(w * t), -a * w * w * np.sin(w * t)
        model.q, model.v = q, v
        return model.inverse_dynamics(ad + kd * (vd - v) + kp * (qd - q))

    log = []
    sim = mbt.Simulator(ctx, integrator="rk45", dt=1e-2, controller=controller,
                        observer=lambda t, q, v: log.append((t, *q)))
    sim.advance_to(2.0)
    log = np.array(log)
    t = log[:, 0]
    q_des = q0 + a * np.sin(w * t[:, None])
    print(f"{sim.stats['steps_taken']} steps, max tracking error over the last second:",
          np.max(np.abs(log[t >= 1.0, 1:] - q_des[t >= 1.0])))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return log
    fig, ax = plt.subplots(figsize=(7, 4))
    for k in range(3):
        ax.plot(t, log[:, 1 + k], label=tree.position_names[k])
        ax.plot(t, q_des[:, k], "k:", linewidth=0.8)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("q (rad)")
    ax.legend()
    png = png or "ur5_tracking.png"
    fig.savefig(png, dpi=100)
    print("plot:", png)
    return log


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
