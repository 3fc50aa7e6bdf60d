/* plot.h: the plot of `mbt simulate`: joint positions and total energy over time, in two
 * panels with a legend, laid out here and written as SVG by hand or as PNG drawn with cairo
 * (no plotting library). */
#ifndef MBT_CLI_PLOT_H
#define MBT_CLI_PLOT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const char* title;            /* e.g. "panda: 5 s simulated, rk45" */
  int n;                        /* samples */
  const double* t;              /* [n] time in s */
  int num_series;               /* position coordinates */
  const double* q;              /* [n * num_series], sample-major: q[i*num_series + k] */
  const char* const* names;     /* [num_series] legend entries ("panda_joint1.q") */
  const double* energy;         /* [n] total energy in J */
} plot_data;

/* True if the path names a format the plot can be written in (.svg or .png). */
bool plot_format_supported(const char* path);
/* Writes the plot in the format of the file's extension; false with a message in err. */
bool plot_write(const char* path, const plot_data* data, char* err, size_t err_size);

/* ---- drawing backends (plot.c lays out, a backend draws) ------------------------------ */
typedef enum { PLOT_ANCHOR_START, PLOT_ANCHOR_MIDDLE, PLOT_ANCHOR_END } plot_anchor;

typedef struct plot_backend {
  void* self;
  int width, height;        /* canvas in px */
  double char_width;        /* advance of one character of body text, px (for layout) */
  /* Colors are "#rrggbb". dash: 0 solid, 1 dashed, 2 dotted. */
  void (*rect)(void* self, double x, double y, double w, double h, const char* stroke, const char* fill);
  void (*line)(void* self, double x1, double y1, double x2, double y2, const char* color, double width,
               int dash);
  void (*polyline_begin)(void* self, const char* color, double width, int dash);
  void (*polyline_point)(void* self, double x, double y);
  void (*polyline_end)(void* self);
  /* Text with its baseline (or its middle if vcenter) at y; size in px; vertical: rotated
   * 90° counter-clockwise about (x, y). */
  void (*text)(void* self, double x, double y, const char* s, plot_anchor anchor, bool vcenter, double size,
               bool bold, bool vertical);
  /* Restricts drawing to a rectangle until clip_end. */
  void (*clip_begin)(void* self, double x, double y, double w, double h);
  void (*clip_end)(void* self);
} plot_backend;

/* Draws the plot with a backend whose width, height and char_width are set. */
void plot_draw(const plot_backend* b, const plot_data* data);
/* The canvas size the layout needs for this data, given the text advance. */
void plot_canvas_size(const plot_data* data, double char_width, int* width, int* height);

bool plot_write_svg(const char* path, const plot_data* data, char* err, size_t err_size);
bool plot_write_png(const char* path, const plot_data* data, char* err, size_t err_size);

#endif /* MBT_CLI_PLOT_H */
