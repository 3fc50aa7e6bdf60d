/* arena.h: memory handed out from a list of large blocks and freed all at once (not installed).
 *
 * For the many small records that live exactly as long as their owner: the names of a tree's
 * elements, the element records of an XML document. n small allocations cost a few mallocs,
 * sit next to each other in memory, and are freed together; a mark and a rewind free what was
 * allocated since the mark. */
#ifndef MBT_TREE_ARENA_H
#define MBT_TREE_ARENA_H

#include <stddef.h>

typedef struct mbt_arena_block mbt_arena_block;

typedef struct {
  mbt_arena_block* head;  /* the newest block; NULL when empty */
  mbt_arena_block* spare; /* the largest block a rewind freed, kept for the next one needed */
} mbt_arena;

typedef struct {
  mbt_arena_block* block;
  size_t used;
} mbt_arena_mark;

/* n bytes aligned to `align` (a power of two, at most alignof(max_align_t)), NULL if out of memory. */
void* mbt__arena_alloc(mbt_arena* arena, size_t n, size_t align);
/* A copy of s[0, n) and a terminating NUL, NULL if out of memory. */
char* mbt__arena_string(mbt_arena* arena, const char* s, size_t n);
/* A copy of the string prefix followed by the string suffix (NULL for none), NULL if out of memory. */
char* mbt__arena_concat(mbt_arena* arena, const char* prefix, const char* suffix);
mbt_arena_mark mbt__arena_mark(const mbt_arena* arena);
/* Frees what was allocated since the mark (keeping one block for reuse: rewinding to the same
 * mark again and again, as a reader of one record at a time does, costs no malloc). */
void mbt__arena_rewind(mbt_arena* arena, mbt_arena_mark mark);
void mbt__arena_free(mbt_arena* arena);

#endif /* MBT_TREE_ARENA_H */
