/* fuzz_common.h: what the fuzz targets share: every Calc function of the library called once on
 * a finalized tree, with the identities between them checked (a failed check is a finding: the
 * target traps, libFuzzer saves the input). */
#ifndef MBT_FUZZ_COMMON_H
#define MBT_FUZZ_COMMON_H

#include <stdbool.h>
#include "mbt/mbt.h"

/* A check that must hold for every input. */
#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) __builtin_trap(); \
  } while (0)

/* Creates a context, sets x (nq + nv numbers, NULL for the default state), calls every Calc
 * function once and, with `check`, verifies ID(FD(τ)) = τ (τ = tau, NULL for zero) and that the
 * mass matrix of the composite-rigid-body algorithm equals the one built column by column by
 * inverse dynamics, and that forward dynamics by ABA equals the one through the mass matrix,
 * all relative to the size of the terms. Statuses other than MBT_OK are allowed (singular
 * inertias, ...) but must come with a message. */
void fuzz_run_algorithms(const mbt_tree* tree, const mbt_real* x, const mbt_real* tau, bool check);

#endif /* MBT_FUZZ_COMMON_H */
