/* sweep_mpi.c: `mbt sweep` over the ranks of an MPI job (Open MPI from Debian, found by CMake;
 * optional at build time). Rank 0 reads and writes the results file; it broadcasts which runs
 * are done, every rank takes every size-th remaining run, and the worker ranks send their
 * finished rows to rank 0 as text after each chunk. Only the main thread calls MPI. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sweep.h"

#ifdef MBT_HAVE_MPI
#include <mpi.h>
#endif

enum { kTagRows = 16, kTagLast = 17 };

bool sweep_mpi_launched(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

#ifdef MBT_HAVE_MPI

bool sweep_mpi_init(bool wanted, sweep_mpi* mpi) {
  memset(mpi, 0, sizeof *mpi);
  mpi->size = 1;
  if (!wanted && !sweep_mpi_launched()) return true;
  int provided = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    cli_error("sweep", "MPI could not start");
    return false;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi->size);
  mpi->active = true;
  return true;
}

/* Open MPI waits by polling: a rank blocked in MPI_Probe or in MPI_Finalize's barrier keeps a
 * core busy, which on a machine with fewer cores than ranks (or with the threads of the
 * other ranks on it) takes the core from a rank still computing. The ranks therefore wait
 * for each other, and rank 0 for rows, by testing and sleeping 0.2 ms between tests. */
static void sleep_a_little(void) {
  const struct timespec t = {0, 200000};
  nanosleep(&t, NULL);
}

void sweep_mpi_finalize(sweep_mpi* mpi) {
  if (!mpi->active) return;
  MPI_Request barrier;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
  while (MPI_Test(&barrier, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) sleep_a_little();
  MPI_Finalize();
  mpi->active = false;
}

void sweep_mpi_broadcast_done(const sweep_mpi* mpi, unsigned char* done, long n) {
  if (mpi->active) MPI_Bcast(done, (int)n, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
}

void sweep_mpi_send_rows(const sweep_mpi* mpi, const char* text, bool last) {
  if (!mpi->active) return;
  MPI_Send(text, (int)strlen(text) + 1, MPI_CHAR, 0, last ? kTagLast : kTagRows, MPI_COMM_WORLD);
}

void sweep_mpi_receive_rows(sweep_mpi* mpi, bool block, void (*on_rows)(const char* text, void* user), void* user) {
  if (!mpi->active) return;
  while (mpi->workers_finished < mpi->size - 1) {
    MPI_Status st;
    int pending = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pending, &st);
    if (!pending && !block) return;
    if (!pending) {
      sleep_a_little();
      continue;
    }
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    char* buf = malloc((size_t)count + 1);
    MPI_Recv(buf, count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (buf) {
      buf[count] = '\0';
      on_rows(buf, user);
      free(buf);
    }
    if (st.MPI_TAG == kTagLast) ++mpi->workers_finished;
  }
}

#else /* without MPI */

bool sweep_mpi_init(bool wanted, sweep_mpi* mpi) {
  memset(mpi, 0, sizeof *mpi);
  mpi->size = 1;
  if (!wanted && !sweep_mpi_launched()) return true;
  cli_error("sweep",
            "%s, but this mbt was built without MPI. Install Open MPI (on Debian: apt-get install "
            "libopenmpi-dev openmpi-bin, which scripts/install-deps.sh does) and rebuild; CMake finds it. "
            "Without --mpi and mpirun, mbt sweep runs every run in one process on all its cores.",
            wanted ? "--mpi was given" : "mbt was started by mpirun");
  return false;
}

void sweep_mpi_finalize(sweep_mpi* mpi) { (void)mpi; }
void sweep_mpi_broadcast_done(const sweep_mpi* mpi, unsigned char* done, long n) {
  (void)mpi;
  (void)done;
  (void)n;
}
void sweep_mpi_send_rows(const sweep_mpi* mpi, const char* text, bool last) {
  (void)mpi;
  (void)text;
  (void)last;
}
void sweep_mpi_receive_rows(sweep_mpi* mpi, bool block, void (*on_rows)(const char* text, void* user), void* user) {
  (void)mpi;
  (void)block;
  (void)on_rows;
  (void)user;
}

#endif
