/* fuzz_common.h: what the fuzz targets share: every Calc function of the library called once on
 * a finalized tree, with the identities between them checked (a failed check is a finding: the
 * target traps, libFuzzer saves the input). */
#ifndef MBT_FUZZ_COMMON_H
#define MBT_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mbt/mbt.h"

/* A check that must hold for every input. */
#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) __builtin_trap(); \
  } while (0)

/* The fuzz input, read one byte at a time (0 after its end). */
typedef struct {
  const uint8_t* data;
  size_t size, pos;
} fuzz_bytes;

unsigned fuzz_byte(fuzz_bytes* b);
/* A number in [lo, hi] from one byte. */
double fuzz_real(fuzz_bytes* b, double lo, double hi);
/* A rigid transform: roll-pitch-yaw and a position in [−1, 1]³. */
mbt_transform fuzz_transform(fuzz_bytes* b);

/* A finalized tree of 1 to max_bodies bodies (at most 16) with every mobilizer type: parents,
 * frames, axes, pitches and inertias all from the bytes, some bodies left free (finalize adds
 * a floating mobilizer). Inertias are kept physical and well conditioned (mass in [0.5, 2], box
 * sides in [0.1, 1]) so that identities between algorithms hold to rounding. NULL if finalize
 * refuses the tree (which must then say why). */
mbt_tree* fuzz_build_tree(fuzz_bytes* b, int max_bodies);

/* max |a_i| */
double fuzz_max_abs(const mbt_real* a, int n);
/* A call that fails (s != MBT_OK) must return a negative status and leave a message on ctx. */
void fuzz_ok_or_explained(const mbt_context* ctx, int s);

/* Creates a context, sets x (nq + nv numbers, NULL for the default state), calls every Calc
 * function once and, with `check`, verifies ID(FD(τ)) = τ (τ = tau, NULL for zero) and that the
 * mass matrix of the composite-rigid-body algorithm equals the one built column by column by
 * inverse dynamics, and that forward dynamics by ABA equals the one through the mass matrix,
 * all relative to the size of the terms. Statuses other than MBT_OK are allowed (singular
 * inertias, ...) but must come with a message. */
void fuzz_run_algorithms(const mbt_tree* tree, const mbt_real* x, const mbt_real* tau, bool check);

#endif /* MBT_FUZZ_COMMON_H */
