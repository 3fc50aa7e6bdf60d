/* arena.c: memory from a list of large blocks (arena.h). */
#include "tree/arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct mbt_arena_block {
  mbt_arena_block* next; /* the block before it */
  size_t used, cap;
  alignas(max_align_t) unsigned char data[];
};

/* Blocks start small (a tree of a few bodies needs little) and double up to kMaxBlockBytes. */
enum { kFirstBlockBytes = 1 << 10, kMaxBlockBytes = 1 << 16 };

void* mbt__arena_alloc(mbt_arena* arena, size_t n, size_t align) {
  mbt_arena_block* b = arena->head;
  size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
  if (!b || at > b->cap || b->cap - at < n) {
    size_t cap = b ? (b->cap < kMaxBlockBytes / 2 ? 2 * b->cap : kMaxBlockBytes) : kFirstBlockBytes;
    if (cap < n) cap = n;
    mbt_arena_block* nb = arena->spare && arena->spare->cap >= n ? arena->spare : malloc(sizeof *nb + cap);
    if (!nb) return NULL;
    if (nb == arena->spare)
      arena->spare = NULL;
    else
      nb->cap = cap;
    nb->next = b;
    arena->head = b = nb;
    at = 0;
  }
  b->used = at + n;
  return b->data + at;
}

char* mbt__arena_string(mbt_arena* arena, const char* s, size_t n) {
  char* c = mbt__arena_alloc(arena, n + 1, 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = '\0';
  }
  return c;
}

char* mbt__arena_concat(mbt_arena* arena, const char* prefix, const char* suffix) {
  const size_t a = strlen(prefix), b = suffix ? strlen(suffix) : 0;
  char* c = mbt__arena_alloc(arena, a + b + 1, 1);
  if (c) {
    memcpy(c, prefix, a);
    memcpy(c + a, suffix ? suffix : "", b + 1);
  }
  return c;
}

mbt_arena_mark mbt__arena_mark(const mbt_arena* arena) {
  return (mbt_arena_mark){arena->head, arena->head ? arena->head->used : 0};
}

void mbt__arena_rewind(mbt_arena* arena, mbt_arena_mark mark) {
  while (arena->head && arena->head != mark.block) {
    mbt_arena_block* b = arena->head;
    arena->head = b->next;
    if (!arena->spare || b->cap > arena->spare->cap) {
      free(arena->spare);
      arena->spare = b;
    } else {
      free(b);
    }
  }
  if (arena->head) arena->head->used = mark.used;
}

void mbt__arena_free(mbt_arena* arena) {
  mbt__arena_rewind(arena, (mbt_arena_mark){NULL, 0});
  free(arena->spare);
  arena->spare = NULL;
}
