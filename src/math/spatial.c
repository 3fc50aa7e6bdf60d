/* Printing of spatial vectors (mbt/spatial.h); everything else there is inline. */
#include "mbt/spatial.h"

#include <stdio.h>

_Static_assert(sizeof(mbt_spatial_velocity) == 6 * sizeof(mbt_real), "V packs 6 scalars");
_Static_assert(sizeof(mbt_spatial_acceleration) == 6 * sizeof(mbt_real), "A packs 6 scalars");
_Static_assert(sizeof(mbt_spatial_force) == 6 * sizeof(mbt_real), "F packs 6 scalars");
_Static_assert(sizeof(mbt_spatial_momentum) == 6 * sizeof(mbt_real), "L packs 6 scalars");

#define MBT_SPATIAL_FORMAT "[%g, %g, %g, %g, %g, %g]"
#define MBT_SPATIAL_ARGS(c)                                                                      \
  mbt_value((c)[0]), mbt_value((c)[1]), mbt_value((c)[2]), mbt_value((c)[3]), mbt_value((c)[4]), \
      mbt_value((c)[5])

/* "[c0, c1, c2, c3, c4, c5]" into buf (snprintf semantics). */
static int print6(char* buf, size_t n, const mbt_real c[6]) {
  return snprintf(buf, n, MBT_SPATIAL_FORMAT, MBT_SPATIAL_ARGS(c));
}
/* The same text to a stream. */
static int fprint6(FILE* f, const mbt_real c[6]) {
  return fprintf(f, MBT_SPATIAL_FORMAT, MBT_SPATIAL_ARGS(c));
}

int mbt_spatial_velocity_to_string(char* buf, size_t n, const mbt_spatial_velocity* V) {
  return print6(buf, n, V->coeffs);
}
int mbt_spatial_velocity_fprint(FILE* f, const mbt_spatial_velocity* V) {
  return fprint6(f, V->coeffs);
}
int mbt_spatial_acceleration_to_string(char* buf, size_t n, const mbt_spatial_acceleration* A) {
  return print6(buf, n, A->coeffs);
}
int mbt_spatial_acceleration_fprint(FILE* f, const mbt_spatial_acceleration* A) {
  return fprint6(f, A->coeffs);
}
int mbt_spatial_force_to_string(char* buf, size_t n, const mbt_spatial_force* F) {
  return print6(buf, n, F->coeffs);
}
int mbt_spatial_force_fprint(FILE* f, const mbt_spatial_force* F) { return fprint6(f, F->coeffs); }
int mbt_spatial_momentum_to_string(char* buf, size_t n, const mbt_spatial_momentum* L) {
  return print6(buf, n, L->coeffs);
}
int mbt_spatial_momentum_fprint(FILE* f, const mbt_spatial_momentum* L) {
  return fprint6(f, L->coeffs);
}
