/* batch_internal.h: the batch's pool and contexts, shared by the batched calls of batch.c
 * (dynamics, kinematics, rollouts) and batch_derivatives.c (mbt/derivatives.h over n states). */
#ifndef MBT_BATCH_INTERNAL_H
#define MBT_BATCH_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "mbt/batch.h"
#include "mbt/derivatives.h"
#include "tree/context_internal.h"

typedef struct mbt_batch_worker mbt_batch_worker;
/* Computes item `item` on thread `thread`; MBT_OK or a status with the message in msg. */
typedef int (*batch_item_fn)(mbt_batch* b, int thread, int item, char* msg, size_t msg_size);

/* The lowest-numbered failed item a thread has seen in the current job. */
typedef struct {
  int item;                    /* -1: none */
  int status;
  char msg[MBT_ERROR_MAX];
} batch_failure;

struct mbt_batch_worker {
  mbt_batch* batch;
  int thread;
};

struct mbt_batch {
  const mbt_tree* tree;
  int num_threads;
  mbt_context** ctx;           /* [num_threads] */
  mbt_derivatives_workspace** ws; /* [num_threads] */
  mbt_real** scratch;          /* [num_threads]: 6·nv² numbers each */
  pthread_t* threads;          /* [num_threads − 1]; thread 0 is the caller */
  mbt_batch_worker* workers;   /* [num_threads − 1] */
  int num_started;
  bool sync_ready;
  pthread_mutex_t lock;        /* open, quit, the changes of generation and active; the
                                  rollouts' done callback */
  pthread_cond_t wake, idle;
  atomic_ulong generation;     /* the number of calls started */
  atomic_ulong active;         /* workers in the current call */
  int ready;                   /* workers started and waiting */
  bool open;                   /* workers may still join the current call */
  bool quit;
  /* the current job */
  batch_item_fn fn;
  const void* job;
  int n, chunk;                /* items, largest chunk */
  char pad0[64];               /* next on a cache line of its own: taking a chunk does not */
  atomic_int next;             /* invalidate the job's fields in the other threads' caches */
  char pad1[64];
  atomic_bool stop;            /* rollouts: no further item starts */
  batch_failure* fail;         /* [num_threads] */
  char error[MBT_ERROR_MAX];
};

/* The inputs and outputs of one batched evaluation, row k of each at k times its row size. */
typedef struct {
  const mbt_real* in;      /* x or q rows */
  const mbt_real* in2;     /* vdot or tau_applied rows, or NULL */
  const mbt_real* in3;     /* tau_applied rows, or NULL */
  void* out;
  mbt_real *out2, *out3, *out4; /* further outputs (derivatives), or NULL */
  mbt_real h;              /* time step (step derivatives) */
  int* status;
} mbt__batch_eval_job;

/* The batch's message: printf-style, returns status. */
int mbt__batch_error(mbt_batch* b, int status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Runs fn over the n items of job on all threads, in chunks sized for n; MBT_OK or the status
 * of the lowest-numbered failed item ("state k: message" in the batch's error). */
int mbt__batch_run_eval(mbt_batch* b, const char* fn_name, batch_item_fn fn, int n, const mbt__batch_eval_job* job);
/* The end of an item: status[k], NaN in the rows of a failed state, the context's message. */
int mbt__batch_finish_item(mbt_batch* b, int thread, int k, int st, char* msg, size_t msg_size);
void mbt__batch_fill_nan(mbt_real* x, size_t n);

#endif /* MBT_BATCH_INTERNAL_H */
