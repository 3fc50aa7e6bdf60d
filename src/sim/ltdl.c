/* ltdl.c: the dofs' parents and the solves with the mass matrix factored with the tree's
 * sparsity (mbt__ltdl_factor_ex, cholesky.c), M = Lᵀ·D·L, L unit lower triangular with L_ki ≠ 0
 * only where dof i is an ancestor of dof k [Featherstone, Rigid Body Dynamics Algorithms, 2008,
 * §6.5, "LTDL factorization"]. With d the depth of the tree in dofs,
 * factoring costs O(nv·d²) and applying L⁻ᵀ to a vector with nonzeros on one branch O(d²): the
 * contact step's W = J·M⁻¹·Jᵀ = (J·L⁻¹)·D⁻¹·(J·L⁻¹)ᵀ is then built from short sparse rows
 * (as MuJoCo builds its constraint matrices [Todorov, Erez, Tassa, "MuJoCo", IROS 2012]). */
#include "sim/sim_internal.h"
#include "tree/tree_internal.h"

bool mbt__dof_parents(const mbt_tree* tree, int* lambda) {
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    if (n->nv == 0) continue;
    int up = -1; /* the last dof of the nearest ancestor with dofs */
    for (int a = n->parent_node; a > 0 && up < 0; a = tree->nodes[a].parent_node)
      if (tree->nodes[a].nv > 0) up = tree->nodes[a].v_start + tree->nodes[a].nv - 1;
    for (int i = 0; i < n->nv; ++i) lambda[n->v_start + i] = i == 0 ? up : n->v_start + i - 1;
    if (up >= n->v_start) return false; /* dofs not numbered parents first */
  }
  return true;
}

void mbt__ltdl_solve_lt(const mbt_real* L, int n, const int* lambda, mbt_real* x) {
  for (int k = n - 1; k >= 0; --k) {
    if (x[k] == 0) continue;
    const mbt_real* Lk = L + (size_t)k * (size_t)n;
    for (int i = lambda[k]; i >= 0; i = lambda[i]) x[i] -= Lk[i] * x[k];
  }
}

void mbt__ltdl_solve(const mbt_real* L, int n, const int* lambda, mbt_real* x) {
  mbt__ltdl_solve_lt(L, n, lambda, x);
  for (int k = 0; k < n; ++k) x[k] /= L[(size_t)k * (size_t)n + (size_t)k];
  for (int k = 0; k < n; ++k) {
    const mbt_real* Lk = L + (size_t)k * (size_t)n;
    for (int i = lambda[k]; i >= 0; i = lambda[i]) x[k] -= Lk[i] * x[i];
  }
}
