/* bench_svg.c: a log-log line plot written as SVG by hand (no plotting dependency). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "bench.h"

static const char* const kColors[] = {"#1f77b4", "#1f77b4", "#d62728", "#d62728", "#2ca02c", "#2ca02c",
                                      "#9467bd", "#9467bd", "#ff7f0e", "#ff7f0e"};

bool mbt_bench_write_svg(const char* path, const char* title, int nseries, const char* const* names,
                         const int* npts, const double* const* x, const double* const* y) {
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int s = 0; s < nseries; ++s)
    for (int i = 0; i < npts[s]; ++i) {
      if (!(x[s][i] > 0) || !(y[s][i] > 0)) continue;
      xmin = fmin(xmin, x[s][i]);
      xmax = fmax(xmax, x[s][i]);
      ymin = fmin(ymin, y[s][i]);
      ymax = fmax(ymax, y[s][i]);
    }
  if (!(xmin <= xmax) || !(ymin <= ymax)) return false;
  /* Whole decades on y, powers of two on x. */
  const double ly0 = floor(log10(ymin)), ly1 = fmax(ceil(log10(ymax)), ly0 + 1);
  const double lx0 = floor(log2(xmin)), lx1 = fmax(ceil(log2(xmax)), lx0 + 1);
  FILE* f = fopen(path, "w");
  if (!f) return false;
  const double W = 960, H = 600, L = 90, R = 250, T = 50, B = 70;
  const double pw = W - L - R, ph = H - T - B;
#define PX(v) (L + (log2(v) - lx0) / (lx1 - lx0) * pw)
#define PY(v) (T + ph - (log10(v) - ly0) / (ly1 - ly0) * ph)
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
          "font-family=\"sans-serif\" font-size=\"13\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
          "<text x=\"%g\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">%s</text>\n",
          W, H, W, H, L + pw / 2, title);
  /* Grid and ticks. */
  for (double e = ly0; e <= ly1 + 1e-9; e += 1) {
    for (int m = 1; m <= 9; ++m) {
      const double v = (double)m * pow(10, e);
      if (log10(v) > ly1 + 1e-9) break;
      const double py = PY(v);
      fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n", L, py,
              L + pw, py, m == 1 ? "#bbbbbb" : "#eeeeee");
      if (m == 1 || m == 2 || m == 5)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, py + 4, v);
    }
  }
  for (double e = lx0; e <= lx1 + 1e-9; e += 1) {
    const double v = pow(2, e), px = PX(v);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\" stroke-width=\"1\"/>\n", px, T,
            px, T + ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", px, T + ph + 18, v);
  }
  fprintf(f,
          "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n"
          "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">bodies (log scale)</text>\n"
          "<text x=\"20\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 20 %g)\">"
          "ns per body (log scale)</text>\n",
          L, T, pw, ph, L + pw / 2, H - 25, T + ph / 2, T + ph / 2);
  /* Series: even index solid (chains), odd dashed (trees) when names say so. */
  for (int s = 0; s < nseries; ++s) {
    const char* color = kColors[s % (int)(sizeof kColors / sizeof kColors[0])];
    const bool dashed = strstr(names[s], "tree") != NULL;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", color,
            dashed ? " stroke-dasharray=\"6 4\"" : "");
    for (int i = 0; i < npts[s]; ++i)
      if (x[s][i] > 0 && y[s][i] > 0) fprintf(f, "%.1f,%.1f ", PX(x[s][i]), PY(y[s][i]));
    fprintf(f, "\"/>\n");
    for (int i = 0; i < npts[s]; ++i)
      if (x[s][i] > 0 && y[s][i] > 0)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(x[s][i]), PY(y[s][i]), color);
    const double ly = T + 10 + 22 * s;
    fprintf(f,
            "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"2\"%s/>\n"
            "<text x=\"%g\" y=\"%g\">%s</text>\n",
            L + pw + 15, ly, L + pw + 50, ly, color, dashed ? " stroke-dasharray=\"6 4\"" : "", L + pw + 58, ly + 4,
            names[s]);
  }
  fprintf(f,
          "<text x=\"%g\" y=\"%g\" font-size=\"11\" fill=\"#555555\">flat = O(n); slope 1 = O(n²)</text>\n"
          "</svg>\n",
          L + pw + 15, T + 10 + 22 * nseries + 10);
#undef PX
#undef PY
  return fclose(f) == 0;
}
