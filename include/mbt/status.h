/* mbt/status.h: status codes returned by every mbt call that can fail.
 *
 * A call that can fail returns MBT_OK (0) or a negative status, and leaves a message that
 * names the element and the problem, retrievable from the object it was called on
 * (mbt_tree_last_error, mbt_context_last_error, ...). A failed call changes nothing.
 * Functions that create an element return its index (>= 0) or a negative status. */
#ifndef MBT_STATUS_H
#define MBT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MBT_OK = 0,
  MBT_ERR_INVALID_ARGUMENT = -1, /* a value out of its domain (zero axis, NaN, ...) */
  MBT_ERR_NOT_FOUND = -2,        /* unknown index or name */
  MBT_ERR_DUPLICATE = -3,        /* a name already used */
  MBT_ERR_FINALIZED = -4,        /* the tree is finalized and can no longer change */
  MBT_ERR_NOT_FINALIZED = -5,    /* the call needs a finalized tree */
  MBT_ERR_TOPOLOGY = -6,         /* loops, a body with two inboard mobilizers, ... */
  MBT_ERR_NONPHYSICAL = -7,      /* an inertia that no physical body can have */
  MBT_ERR_SIZE = -8,             /* an array of the wrong size */
  MBT_ERR_NO_MEMORY = -9,        /* allocation failed (only while building) */
  MBT_ERR_SINGULAR = -10,        /* a singular matrix: the quantity is undefined */
  MBT_ERR_PARSE = -11,           /* a model file that cannot be read as one */
  MBT_ERR_IO = -12,              /* a file that cannot be opened or read */
  MBT_ERR_INTERRUPTED = -13,     /* a run stopped at the caller's request */
  MBT_ERR_LIMIT = -14            /* an input beyond a documented limit (docs/errors.md) */
} mbt_status;

/* A short constant name for a status ("invalid argument", ...). Never NULL. */
const char* mbt_status_string(int status);

#ifdef __cplusplus
}
#endif
#endif /* MBT_STATUS_H */
