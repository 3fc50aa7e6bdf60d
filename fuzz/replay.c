/* replay.c: runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer, so that the
 * kept inputs (fuzz/corpus/<target>/: the seeds and the reproducer of every finding) are
 * replayed by the test suite with any compiler. Usage: replay_<target> FILE|DIR... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int run_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open '%s'\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t* buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t* b = realloc(buf, cap *= 2);
      if (!b) free(buf);
      buf = b;
    }
  }
  fclose(f);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char** argv) {
  int failures = 0, count = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR* d = opendir(argv[i]);
      struct dirent* e;
      while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
        failures += run_file(path);
        ++count;
      }
      if (d) closedir(d);
    } else {
      failures += run_file(argv[i]);
      ++count;
    }
  }
  printf("replayed %d inputs\n", count);
  return failures != 0 || count == 0;
}
