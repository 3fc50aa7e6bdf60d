"""Balancing a double pendulum upright with an LQR gain computed from mbt's analytic
derivatives (docs/python.md).

The pendulum is built with the builder API: two 1 m links on revolute joints about y, both
pointing up at q = 0, an unstable equilibrium where gravity exerts no torque. One
semi-implicit Euler step of h = 10 ms, x⁺ = f(x, u) with x = [q; v], is linearized there by
Context.semi_implicit_euler_step_derivatives:

    δx⁺ = A·δx + B·δu,   A = [dq_dq dq_dv; dv_dq dv_dv],   B = [dq_dtau; dv_dtau],

the discrete Riccati equation P = Q + Aᵀ·P·A − Aᵀ·P·B·(R + Bᵀ·P·B)⁻¹·Bᵀ·P·A is iterated to
its fixed point, and u = −K·x with K = (R + Bᵀ·P·B)⁻¹·Bᵀ·P·A runs as the simulator's Python
controller, from a start 0.2 rad away from upright.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/balance_lqr.py [PLOT.png]
"""
import sys

import numpy as np

import mbt


def double_pendulum():
    """Links of 1 kg and 1 m, center of mass at their middle; q = 0 is upright."""
    tree = mbt.Tree()
    I_rod = np.diag([1 / 12, 1 / 12, 1e-4])               # a slender rod along z, about its middle
    upper = tree.add_rigid_body("upper", 1.0, (0, 0, 0.5), I_rod)
    lower = tree.add_rigid_body("lower", 1.0, (0, 0, 0.5), I_rod)
    X_elbow = np.eye(4)
    X_elbow[2, 3] = 1.0                                   # the elbow at the top of the upper link
    tree.add_joint("revolute", "shoulder", 0, upper, axis=(0, 1, 0))
    tree.add_joint("revolute", "elbow", upper, lower, axis=(0, 1, 0), X_PF=X_elbow)
    tree.finalize()
    return tree


def lqr_gain(ctx, h, Q, R, iterations=5000):
    """K of the discrete LQR at the context's state, from the step's exact Jacobians."""
    _, _, dq_dq, dq_dv, dq_dtau, dv_dq, dv_dv, dv_dtau = ctx.semi_implicit_euler_step_derivatives(h)
    A = np.block([[dq_dq, dq_dv], [dv_dq, dv_dv]])
    B = np.vstack([dq_dtau, dv_dtau])
    P = Q.copy()
    for _ in range(iterations):
        K = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A)
        P_next = Q + A.T @ P @ (A - B @ K)
        if np.max(np.abs(P_next - P)) < 1e-12 * np.max(np.abs(P)):
            break
        P = P_next
    return K, A, B


def main(png=None):
    tree = double_pendulum()
    upright = tree.context()                              # q = 0, v = 0: the equilibrium
    assert np.allclose(upright.gravity_forces(), 0.0, atol=1e-12)
    h = 1e-2
    K, A, B = lqr_gain(upright, h, Q=np.diag([10.0, 10.0, 1.0, 1.0]), R=np.eye(2))
    print("open-loop |eig(A)| max:", np.max(np.abs(np.linalg.eigvals(A))))          # > 1: unstable
    print("closed-loop |eig(A − B·K)| max:", np.max(np.abs(np.linalg.eigvals(A - B @ K))))

    start = tree.context()
    start.q = [0.2, -0.2]
    log = []
    sim = mbt.Simulator(start, integrator="rk4", dt=1e-3,
                        controller=lambda t, q, v: -K @ np.concatenate([q, v]),
                        observer=lambda t, q, v: log.append((t, *q)))
    sim.advance_to(5.0)
    log = np.array(log)
    print("|q| after 5 s:", np.max(np.abs(sim.context.q)))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return log, K, A, B
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(log[:, 0], log[:, 1], label="shoulder")
    ax.plot(log[:, 0], log[:, 2], label="elbow")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("q (rad), 0 = upright")
    ax.legend()
    fig.tight_layout()
    png = png or "balance_lqr.png"
    fig.savefig(png, dpi=100)
    print("plot:", png)
    return log, K, A, B


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
