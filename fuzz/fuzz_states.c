/* fuzz_states.c: libFuzzer target for the states reader of `mbt eval` (tools/cmd_eval.c): the
 * input is the --states file, evaluated on the shipped double pendulum (even sizes) or on the
 * floating-base quadruped solo12 (odd sizes). Any input must give a result or a message naming
 * the file and the field, never a crash, a leak or undefined behaviour. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli_commands.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/mbt_fuzz_states_%ld.json", (long)getpid());
  }
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  char model_pendulum[] = MBT_SOURCE_DIR "/models/double_pendulum.urdf";
  char model_solo[] = MBT_SOURCE_DIR "/models/solo12.urdf";
  char a0[] = "eval", a2[] = "--states", a4[] = "--out", a5[] = "/dev/null", a6[] = "--floating";
  char* argv[] = {a0, size % 2 ? model_solo : model_pendulum, a2, path, a4, a5, a6, NULL};
  const int rc = mbt_cli_eval(size % 2 ? 7 : 6, argv);
  if (rc != 0 && rc != 1) __builtin_trap(); /* 0: evaluated, 1: the file was refused */
  return 0;
}
