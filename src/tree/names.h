/* names.h: name → index hash tables for arrays of named records (not installed).
 *
 * A table indexes an append-only array whose records start with their name (`char* name`
 * or `const char* name` as the first field): it is told the array, the record size and the
 * count, and catches up with records appended since the last call. Open addressing with
 * linear probing on 32-bit FNV-1a hashes, at most three quarters full, so a lookup costs O(1) on
 * average and loading n names costs O(n). A slot holds the hash beside the index, so a probe
 * reads one cache line and compares a string only when the hashes agree. */
#ifndef MBT_TREE_NAMES_H
#define MBT_TREE_NAMES_H

#include <stddef.h>

typedef struct {
  unsigned hash;    /* hash of the record's name */
  int index;        /* record index + 1; 0 = empty */
} mbt_name_slot;

typedef struct {
  mbt_name_slot* slots; /* [cap] */
  int cap;          /* 0 or a power of two */
  int count;        /* records [0, count) are indexed */
} mbt_name_table;

/* Makes room for `count` records without growing again. MBT_OK or MBT_ERR_NO_MEMORY (the
 * table unchanged). */
int mbt__names_reserve(mbt_name_table* table, int count);
/* Indexes records [table->count, count) of `array` (record size `stride`). MBT_OK, or
 * MBT_ERR_NO_MEMORY with the table unchanged (lookups then scan the records not indexed). */
int mbt__names_sync(mbt_name_table* table, const void* array, size_t stride, int count);
/* The index of the first record named `name` among [0, count), or -1. Looks up the table,
 * then scans the records it does not yet index (it is not modified: safe from several
 * threads at once). */
int mbt__names_find(const mbt_name_table* table, const void* array, size_t stride, int count, const char* name);
void mbt__names_free(mbt_name_table* table);

#endif /* MBT_TREE_NAMES_H */

/* The tables of a tree (tree.c), and for the loop check the jump pointers of a
 * union-find over the bodies: jump[b] is b or one of b's ancestors, compressed towards
 * the root of b's subtree as it is searched. */
typedef struct mbt_tree_index {
  mbt_name_table bodies, frames, mobilizers, joints, forces;
  int* jump;
  int num_jump, cap_jump;
} mbt_tree_index;
