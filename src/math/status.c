/* Status codes to text (mbt/status.h). */
#include "mbt/status.h"

const char* mbt_status_string(int status) {
  switch (status) {
    case MBT_OK:
      return "ok";
    case MBT_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case MBT_ERR_NOT_FOUND:
      return "not found";
    case MBT_ERR_DUPLICATE:
      return "duplicate name";
    case MBT_ERR_FINALIZED:
      return "tree already finalized";
    case MBT_ERR_NOT_FINALIZED:
      return "tree not finalized";
    case MBT_ERR_TOPOLOGY:
      return "invalid topology";
    case MBT_ERR_NONPHYSICAL:
      return "non-physical inertia";
    case MBT_ERR_SIZE:
      return "wrong size";
    case MBT_ERR_NO_MEMORY:
      return "out of memory";
    case MBT_ERR_SINGULAR:
      return "singular matrix";
    case MBT_ERR_PARSE:
      return "parse error";
    case MBT_ERR_IO:
      return "input/output error";
    case MBT_ERR_INTERRUPTED:
      return "interrupted";
    case MBT_ERR_LIMIT:
      return "limit exceeded";
    default:
      return "unknown status";
  }
}
