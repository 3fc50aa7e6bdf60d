/* names.c: name → index hash tables (names.h). Hash: 32-bit FNV-1a [Fowler, Noll, Vo]. */
#include "tree/names.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mbt/status.h"

static unsigned fnv1a(const char* s) {
  unsigned h = 2166136261u;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static const char* name_at(const void* array, size_t stride, int i) {
  return *(const char* const*)(const void*)((const char*)array + (size_t)i * stride);
}

/* Puts record `index` with hash h in the first free slot of its probe sequence. */
static void place(mbt_name_slot* slots, int cap, unsigned h, int index) {
  int s = (int)(h & (unsigned)(cap - 1));
  while (slots[s].index) s = (s + 1) & (cap - 1);
  slots[s].hash = h;
  slots[s].index = index + 1;
}

int mbt__names_reserve(mbt_name_table* table, int count) {
  int cap = table->cap > 0 ? table->cap : 16;
  while (cap / 4 * 3 < count) {
    if (cap > INT_MAX / 4) return MBT_ERR_NO_MEMORY;
    cap *= 2;
  }
  if (cap == table->cap) return MBT_OK;
  mbt_name_slot* slots = calloc((size_t)cap, sizeof *slots);
  if (!slots) return MBT_ERR_NO_MEMORY;
  for (int s = 0; s < table->cap; ++s)
    if (table->slots[s].index) place(slots, cap, table->slots[s].hash, table->slots[s].index - 1);
  free(table->slots);
  table->slots = slots;
  table->cap = cap;
  return MBT_OK;
}

int mbt__names_sync(mbt_name_table* table, const void* array, size_t stride, int count) {
  if (count <= table->count) return MBT_OK;
  if (mbt__names_reserve(table, count)) return MBT_ERR_NO_MEMORY;
  for (int i = table->count; i < count; ++i) place(table->slots, table->cap, fnv1a(name_at(array, stride, i)), i);
  table->count = count;
  return MBT_OK;
}

int mbt__names_find(const mbt_name_table* table, const void* array, size_t stride, int count, const char* name) {
  if (!name) return -1;
  const int indexed = table->count < count ? table->count : count;
  int found = -1;
  if (table->cap > 0 && indexed > 0) {
    const unsigned h = fnv1a(name);
    const int mask = table->cap - 1;
    for (int s = (int)(h & (unsigned)mask); table->slots[s].index; s = (s + 1) & mask) {
      const int i = table->slots[s].index - 1;
      if (table->slots[s].hash == h && i < indexed && (found < 0 || i < found) &&
          strcmp(name_at(array, stride, i), name) == 0)
        found = i;
    }
  } else {
    for (int i = 0; i < indexed && found < 0; ++i)
      if (strcmp(name_at(array, stride, i), name) == 0) found = i;
  }
  for (int i = indexed; i < count && found < 0; ++i)
    if (strcmp(name_at(array, stride, i), name) == 0) found = i;
  return found;
}

void mbt__names_free(mbt_name_table* table) {
  free(table->slots);
  memset(table, 0, sizeof *table);
}
