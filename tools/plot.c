/* plot.c: layout of the simulate plot (panels, axes with "nice" ticks, legend, curves),
 * drawn through a backend (plot_svg.c, plot_png.c). */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Geometry in px. Panel 0: positions; panel 1: energy. The legend is right of the plots. */
enum { kLeft = 90, kPlotRight = 760, kLegendX = 780, kHeight = 760 };
static const int kPanelTop[2] = {70, 515};
static const int kPanelBottom[2] = {430, 700};

/* Tableau 10 palette; series 10-19 dashed, 20-29 dotted. */
static const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* At most this many buckets per curve: samples are bucketed, keeping each bucket's minimum
 * and maximum in time order so peaks survive. */
enum { kMaxBuckets = 1200 };

/* An axis shows values y − origin between lo and hi (origin 0 but for an energy that barely
 * changes, which is shown relative to its start so the ticks stay distinct). */
typedef struct {
  double lo, hi, step, origin;
} axis;

bool plot_format_supported(const char* path) {
  size_t n = strlen(path);
  if (n < 4) return false;
  const char* ext = path + n - 4;
  char low[5];
  for (int i = 0; i < 4; ++i) low[i] = (char)(ext[i] >= 'A' && ext[i] <= 'Z' ? ext[i] - 'A' + 'a' : ext[i]);
  low[4] = '\0';
  return strcmp(low, ".svg") == 0 || strcmp(low, ".png") == 0;
}

bool plot_write(const char* path, const plot_data* data, char* err, size_t err_size) {
  size_t n = strlen(path);
  if (!plot_format_supported(path)) {
    snprintf(err, err_size, "'%s': the plot is written as .svg or .png", path);
    return false;
  }
  char c = path[n - 3];
  return (c == 'p' || c == 'P') ? plot_write_png(path, data, err, err_size) : plot_write_svg(path, data, err, err_size);
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) giving about `target` intervals. */
static double nice_step(double range, int target) {
  double raw = range / target;
  double p = pow(10.0, floor(log10(raw)));
  double f = raw / p;
  double nice = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
  return nice * p;
}

static axis make_axis(double lo, double hi, int target) {
  axis a = {0, 0, 0, 0};
  if (!isfinite(lo) || !isfinite(hi)) lo = 0, hi = 1;
  double mag = fmax(fabs(lo), fabs(hi));
  double min_range = 1e-9 * fmax(1.0, mag);
  if (hi - lo < min_range) {
    double mid = 0.5 * (lo + hi);
    lo = mid - min_range;
    hi = mid + min_range;
  }
  double m = 0.04 * (hi - lo); /* margin so curves do not touch the frame */
  lo -= m;
  hi += m;
  a.step = nice_step(hi - lo, target);
  a.lo = floor(lo / a.step) * a.step;
  a.hi = ceil(hi / a.step) * a.step;
  return a;
}

static void format_tick(char* buf, size_t n, double x, double step) {
  if (fabs(x) < 1e-9 * step) x = 0;
  double mag = fmax(fabs(x), step);
  if (step >= 1e-4 && mag < 1e6) {
    int decimals = (int)ceil(-log10(step) - 1e-9);
    if (decimals < 0) decimals = 0;
    snprintf(buf, n, "%.*f", decimals, x);
  } else {
    snprintf(buf, n, "%.6g", x);
  }
}

static double map_x(const axis* a, double t) {
  return kLeft + (t - a->lo) / (a->hi - a->lo) * (kPlotRight - kLeft);
}
static double map_y(const axis* a, int panel, double y) {
  return kPanelBottom[panel] - (y - a->origin - a->lo) / (a->hi - a->lo) * (kPanelBottom[panel] - kPanelTop[panel]);
}

static void draw_axes(const plot_backend* b, int panel, const axis* ax, const axis* ay, const char* ylabel) {
  int top = kPanelTop[panel], bottom = kPanelBottom[panel];
  char buf[64];
  for (long k = (long)ceil(ay->lo / ay->step - 1e-9); k <= (long)floor(ay->hi / ay->step + 1e-9); ++k) {
    double y = (double)k * ay->step, py = map_y(ay, panel, y + ay->origin);
    format_tick(buf, sizeof(buf), y, ay->step);
    b->line(b->self, kLeft, py, kPlotRight, py, "#e0e0e0", 1, 0);
    b->text(b->self, kLeft - 6, py, buf, PLOT_ANCHOR_END, true, 12, false, false);
  }
  for (long k = (long)ceil(ax->lo / ax->step - 1e-9); k <= (long)floor(ax->hi / ax->step + 1e-9); ++k) {
    double x = (double)k * ax->step, px = map_x(ax, x);
    format_tick(buf, sizeof(buf), x, ax->step);
    b->line(b->self, px, top, px, bottom, "#e0e0e0", 1, 0);
    b->text(b->self, px, bottom + 20, buf, PLOT_ANCHOR_MIDDLE, false, 12, false, false);
  }
  b->rect(b->self, kLeft, top, kPlotRight - kLeft, bottom - top, "#333333", NULL);
  b->text(b->self, (kLeft + kPlotRight) / 2.0, bottom + 42, "time [s]", PLOT_ANCHOR_MIDDLE, false, 12, false, false);
  b->text(b->self, 24, (top + bottom) / 2.0, ylabel, PLOT_ANCHOR_MIDDLE, false, 12, false, true);
}

/* One curve; y[i*stride]. Non-finite samples break it. */
static void draw_series(const plot_backend* b, int panel, const axis* ax, const axis* ay, const double* t,
                        const double* y, int stride, int n, const char* color, int dash) {
  int bucket = (n + kMaxBuckets - 1) / kMaxBuckets;
  if (bucket < 1) bucket = 1;
  bool open = false;
  for (int b0 = 0; b0 < n; b0 += bucket) {
    int b1 = b0 + bucket < n ? b0 + bucket : n;
    int lo = -1, hi = -1;
    for (int i = b0; i < b1; ++i) {
      double v = y[(size_t)i * stride];
      if (!isfinite(v) || !isfinite(t[i])) {
        if (open) b->polyline_end(b->self);
        open = false;
        lo = hi = -1;
        continue;
      }
      if (lo < 0 || v < y[(size_t)lo * stride]) lo = i;
      if (hi < 0 || v > y[(size_t)hi * stride]) hi = i;
    }
    if (lo < 0) continue;
    int first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
    for (int k = 0; k < (first == second ? 1 : 2); ++k) {
      int i = k == 0 ? first : second;
      if (!open) {
        b->polyline_begin(b->self, color, 1.6, dash);
        open = true;
      }
      b->polyline_point(b->self, map_x(ax, t[i]), map_y(ay, panel, y[(size_t)i * stride]));
    }
  }
  if (open) b->polyline_end(b->self);
}

static void minmax(const double* y, int stride, int n, double* lo, double* hi) {
  *lo = INFINITY;
  *hi = -INFINITY;
  for (int i = 0; i < n; ++i) {
    double v = y[(size_t)i * stride];
    if (!isfinite(v)) continue;
    if (v < *lo) *lo = v;
    if (v > *hi) *hi = v;
  }
  if (*lo > *hi) *lo = 0, *hi = 1;
}

void plot_canvas_size(const plot_data* d, double char_width, int* width, int* height) {
  size_t longest = 22; /* "start 80.1939 J" and the like */
  for (int k = 0; k < d->num_series; ++k)
    if (strlen(d->names[k]) > longest) longest = strlen(d->names[k]);
  if (longest > 48) longest = 48;
  *width = kLegendX + 30 + (int)ceil((double)longest * char_width) + 20;
  *height = kHeight;
}

void plot_draw(const plot_backend* b, const plot_data* d) {
  int n = d->n;
  double t0 = n > 0 ? d->t[0] : 0, t1 = n > 0 ? d->t[n - 1] : 1;
  if (!(t1 > t0)) t1 = t0 + 1;
  /* The time axis spans the samples exactly; ticks at multiples of a nice step inside. */
  axis ax = {t0, t1, nice_step(t1 - t0, 10), 0};
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < d->num_series; ++k) {
    double a, c;
    minmax(d->q + k, d->num_series, n, &a, &c);
    lo = fmin(lo, a), hi = fmax(hi, c);
  }
  if (d->num_series == 0 || n == 0) lo = -1, hi = 1;
  axis ay_q = make_axis(lo, hi, 8);
  minmax(d->energy, 1, n, &lo, &hi);
  /* Six significant digits cannot tell ticks apart below a relative range of 1e-5. */
  const double e_origin = n > 0 && hi - lo < 1e-5 * fmax(fabs(lo), fabs(hi)) ? d->energy[0] : 0;
  axis ay_e = make_axis(lo - e_origin, hi - e_origin, 5);
  ay_e.origin = e_origin;

  b->rect(b->self, 0, 0, b->width, b->height, NULL, "#ffffff");
  b->text(b->self, kLeft, 30, d->title ? d->title : "mbt simulate", PLOT_ANCHOR_START, false, 17, true, false);
  b->text(b->self, kLeft, kPanelTop[0] - 12, "Joint positions", PLOT_ANCHOR_START, false, 14, false, false);
  b->text(b->self, kLeft, kPanelTop[1] - 12, "Total energy (kinetic + potential)", PLOT_ANCHOR_START, false, 14,
          false, false);

  /* Panel 0: positions, legend beside it (what does not fit is counted). */
  draw_axes(b, 0, &ax, &ay_q, "position [rad or m]");
  b->clip_begin(b->self, kLeft, kPanelTop[0], kPlotRight - kLeft, kPanelBottom[0] - kPanelTop[0]);
  for (int k = 0; k < d->num_series; ++k)
    draw_series(b, 0, &ax, &ay_q, d->t, d->q + k, d->num_series, n, kColors[k % 10], (k / 10) % 3);
  b->clip_end(b->self);
  int max_entries = (kPanelBottom[0] - kPanelTop[0]) / 18;
  for (int k = 0; k < d->num_series; ++k) {
    double y = kPanelTop[0] + 10 + 18 * k;
    if (k == max_entries - 1 && d->num_series > max_entries) {
      char more[64];
      snprintf(more, sizeof(more), "... and %d more", d->num_series - k);
      b->text(b->self, kLegendX, y, more, PLOT_ANCHOR_START, true, 12, false, false);
      break;
    }
    b->line(b->self, kLegendX, y, kLegendX + 24, y, kColors[k % 10], 2.5, (k / 10) % 3);
    b->text(b->self, kLegendX + 30, y, d->names[k], PLOT_ANCHOR_START, true, 12, false, false);
  }

  /* Panel 1: energy. */
  draw_axes(b, 1, &ax, &ay_e, e_origin != 0 ? "energy - E(0) [J]" : "energy [J]");
  b->clip_begin(b->self, kLeft, kPanelTop[1], kPlotRight - kLeft, kPanelBottom[1] - kPanelTop[1]);
  draw_series(b, 1, &ax, &ay_e, d->t, d->energy, 1, n, "#d62728", 0);
  b->clip_end(b->self);
  if (n > 0) {
    char line[96];
    double e0 = d->energy[0], e1 = d->energy[n - 1];
    snprintf(line, sizeof(line), "start %.6g J", e0);
    b->text(b->self, kLegendX, kPanelTop[1] + 14, line, PLOT_ANCHOR_START, false, 12, false, false);
    snprintf(line, sizeof(line), "end %.6g J", e1);
    b->text(b->self, kLegendX, kPanelTop[1] + 32, line, PLOT_ANCHOR_START, false, 12, false, false);
    snprintf(line, sizeof(line), "change %+.3g J", e1 - e0);
    b->text(b->self, kLegendX, kPanelTop[1] + 50, line, PLOT_ANCHOR_START, false, 12, false, false);
  }
}
