/* bench_load.c: `mbt bench --load`: the time to load a URDF model (read, parse, check, build,
 * finalize) as the model grows, per link, in wall-clock and in the process's CPU time (which
 * other programs on a shared machine do not lengthen), next to the time libxml2 alone takes to
 * read the same file: its SAX2 push parser fed 64 KiB pieces with no handler (the floor of any
 * loader built on libxml2, this one included) and its DOM (what a DOM-based loader would pay
 * before reading any element); and the time to create a context. Chains of the generated models
 * of bench_models.c, written to a temporary file. Medians of 5 loads. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <libxml/parser.h>

#include "bench.h"

enum { kRepeats = 5 };

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return t[n / 2];
}

/* CPU seconds used by this process. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void no_start(void* ctx, const xmlChar* localname, const xmlChar* prefix, const xmlChar* URI, int nb_namespaces,
                     const xmlChar** namespaces, int nb_attributes, int nb_defaulted, const xmlChar** attributes) {
  (void)ctx, (void)localname, (void)prefix, (void)URI, (void)nb_namespaces, (void)namespaces, (void)nb_attributes,
      (void)nb_defaulted, (void)attributes;
}

static void no_end(void* ctx, const xmlChar* localname, const xmlChar* prefix, const xmlChar* URI) {
  (void)ctx, (void)localname, (void)prefix, (void)URI;
}

/* Seconds for libxml2's SAX2 push parser to read the file in 64 KiB pieces, the element
 * handlers doing nothing (and no text handler). */
static double time_sax(const char* path) {
  const double t0 = mbt_bench_now();
  FILE* f = fopen(path, "rb");
  char* buf = malloc(1 << 16);
  xmlParserCtxtPtr ctxt = f && buf ? xmlCreatePushParserCtxt(NULL, NULL, NULL, 0, path) : NULL;
  if (ctxt) {
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    ctxt->sax->startElementNs = no_start;
    ctxt->sax->endElementNs = no_end;
    ctxt->sax->characters = NULL;
    ctxt->sax->ignorableWhitespace = NULL;
    for (size_t n; (n = fread(buf, 1, 1 << 16, f)) > 0;) xmlParseChunk(ctxt, buf, (int)n, 0);
    xmlParseChunk(ctxt, NULL, 0, 1);
    xmlFreeDoc(ctxt->myDoc);
    xmlFreeParserCtxt(ctxt);
  }
  free(buf);
  if (f) fclose(f);
  return mbt_bench_now() - t0;
}

/* Hands the freed heap back (glibc: merges the free chunks now, not in the next timed load). */
static void release_free_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

/* Median seconds of: mbt_urdf_load_file (wall and CPU), libxml2's SAX2 and DOM alone,
 * mbt_context_create. */
static int time_one(const char* path, double* load, double* load_cpu, double* sax, double* xml, double* context) {
  double tl[kRepeats], tcpu[kRepeats], ts[kRepeats], tx[kRepeats], tc[kRepeats];
  for (int r = 0; r < kRepeats; ++r) {
    mbt_urdf_result res;
    double t0 = mbt_bench_now();
    const double c0 = cpu_now();
    const int s = mbt_urdf_load_file(path, 0, &res);
    tcpu[r] = cpu_now() - c0;
    tl[r] = mbt_bench_now() - t0;
    if (s) {
      fprintf(stderr, "mbt bench --load: %s\n", res.error);
      mbt_urdf_result_free(&res);
      return s;
    }
    t0 = mbt_bench_now();
    mbt_context* ctx = mbt_context_create(res.tree);
    tc[r] = mbt_bench_now() - t0;
    mbt_context_destroy(ctx);
    mbt_urdf_result_free(&res);
  }
  /* libxml2 alone, after the loads: freeing a DOM leaves millions of small free chunks that
   * glibc merges at the next large malloc, which would otherwise be timed as part of the next
   * load or parse; they are merged and handed back untimed. */
  for (int r = 0; r < kRepeats; ++r) ts[r] = time_sax(path);
  for (int r = 0; r < kRepeats; ++r) {
    const double t0 = mbt_bench_now();
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    tx[r] = mbt_bench_now() - t0;
    xmlFreeDoc(doc);
    release_free_memory();
  }
  *load = median(tl, kRepeats);
  *load_cpu = median(tcpu, kRepeats);
  *sax = median(ts, kRepeats);
  *xml = median(tx, kRepeats);
  *context = median(tc, kRepeats);
  return MBT_OK;
}

int mbt_bench_load(int max_links) {
  static const int sizes[] = {1000, 5000, 10000, 20000, 50000, 100000};
  char path[64];
  snprintf(path, sizeof path, "/tmp/mbt_bench_load_%ld.urdf", (long)mbt_bench_now());
  printf("URDF load time, generated chains (%s, %s)\n", mbt_bench_cpu_model(), mbt_bench_build_type());
  printf("%8s %8s %10s %10s %12s %12s %12s %10s %12s\n", "links", "MB", "load [s]", "cpu [s]", "us per link",
         "SAX only [s]", "DOM only [s]", "MB/s", "context [s]");
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && sizes[k] <= max_links; ++k) {
    const int n = sizes[k];
    mbt_bench_link* links = mbt_bench_generate_links(MBT_BENCH_CHAIN, n);
    char* text = links ? mbt_bench_links_to_urdf(links, n, "chain") : NULL;
    free(links);
    FILE* f = text ? fopen(path, "w") : NULL;
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
      fprintf(stderr, "mbt bench --load: cannot write %s\n", path);
      free(text);
      return 1;
    }
    const double mb = (double)strlen(text) / 1e6;
    free(text);
    double load = 0, load_cpu = 0, sax = 0, xml = 0, context = 0;
    const int s = time_one(path, &load, &load_cpu, &sax, &xml, &context);
    remove(path);
    if (s) return 1;
    printf("%8d %8.1f %10.3f %10.3f %12.2f %12.3f %12.3f %10.1f %12.4f\n", n, mb, load, load_cpu, 1e6 * load / n,
           sax, xml, mb / load, context);
  }
  return 0;
}
