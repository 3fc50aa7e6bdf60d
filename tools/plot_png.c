/* plot_png.c: the PNG backend of the simulate plot, drawn with cairo on an RGB24 image
 * surface (text in cairo's toy font API, "sans-serif" through fontconfig) and encoded with
 * cairo's PNG writer. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <fontconfig/fontconfig.h>

#include "plot.h"

/* Text size of the legend entries (plot.c), which char_width serves. */
#define BODY_SIZE 12.0

static const double kPi = 3.14159265358979323846;

typedef struct {
  cairo_t* cr;
  int points; /* points in the open polyline */
  double x0, y0;
} painter;

static void set_color(cairo_t* cr, const char* hex) {
  unsigned long v = hex && hex[0] == '#' ? strtoul(hex + 1, NULL, 16) : 0;
  cairo_set_source_rgb(cr, (double)((v >> 16) & 0xFF) / 255.0, (double)((v >> 8) & 0xFF) / 255.0,
                       (double)(v & 0xFF) / 255.0);
}

/* Dashes as in plot_svg.c: 1 "6 3", 2 "2 2", else solid. */
static void set_stroke(cairo_t* cr, const char* color, double width, int dash) {
  static const double kDashed[2] = {6, 3}, kDotted[2] = {2, 2};
  set_color(cr, color);
  cairo_set_line_width(cr, width);
  cairo_set_dash(cr, dash == 1 ? kDashed : kDotted, dash == 1 || dash == 2 ? 2 : 0, 0);
}

/* Centers an odd-width axis-aligned stroke on a pixel row/column so it stays sharp. */
static double snap(double c, double width) {
  long w = lround(width);
  return (w % 2 == 1 && fabs(width - (double)w) < 1e-9) ? floor(c) + 0.5 : c;
}

static void png_rect(void* self, double x, double y, double w, double h, const char* stroke, const char* fill) {
  cairo_t* cr = ((painter*)self)->cr;
  if (fill) {
    set_color(cr, fill);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
  }
  if (stroke) {
    double xa = snap(x, 1), ya = snap(y, 1);
    set_stroke(cr, stroke, 1, 0);
    cairo_rectangle(cr, xa, ya, snap(x + w, 1) - xa, snap(y + h, 1) - ya);
    cairo_stroke(cr);
  }
}

static void png_line(void* self, double x1, double y1, double x2, double y2, const char* color, double width,
                     int dash) {
  cairo_t* cr = ((painter*)self)->cr;
  if (y1 == y2) y1 = y2 = snap(y1, width);
  if (x1 == x2) x1 = x2 = snap(x1, width);
  set_stroke(cr, color, width, dash);
  cairo_move_to(cr, x1, y1);
  cairo_line_to(cr, x2, y2);
  cairo_stroke(cr);
}

static void png_polyline_begin(void* self, const char* color, double width, int dash) {
  painter* p = self;
  set_stroke(p->cr, color, width, dash);
  cairo_set_line_join(p->cr, CAIRO_LINE_JOIN_ROUND);
  cairo_new_path(p->cr);
  p->points = 0;
}

static void png_polyline_point(void* self, double x, double y) {
  painter* p = self;
  if (p->points++ == 0) {
    cairo_move_to(p->cr, x, y);
    p->x0 = x, p->y0 = y;
  } else {
    cairo_line_to(p->cr, x, y);
  }
}

static void png_polyline_end(void* self) {
  painter* p = self;
  if (p->points == 1) { /* a lone sample: a dot of the line's width */
    cairo_new_path(p->cr);
    cairo_arc(p->cr, p->x0, p->y0, 0.5 * cairo_get_line_width(p->cr), 0, 2 * kPi);
    cairo_fill(p->cr);
  } else {
    cairo_stroke(p->cr);
  }
  cairo_set_line_join(p->cr, CAIRO_LINE_JOIN_MITER);
}

/* A copy of s with every byte that is not part of valid UTF-8 replaced by '?' (cairo puts
 * the context in an error state on invalid strings). */
static char* valid_utf8(const char* s) {
  size_t n = strlen(s);
  char* out = malloc(n + 1);
  if (!out) return NULL;
  const unsigned char* u = (const unsigned char*)s;
  size_t i = 0;
  while (i < n) {
    unsigned c = u[i];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    unsigned long cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (u[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (u[i + k] & 0x3F);
    }
    /* No overlong forms, surrogates or code points beyond U+10FFFF. */
    static const unsigned long kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (ok && (cp < kMin[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)) ok = false;
    if (ok) {
      memcpy(out + i, s + i, len);
      i += len;
    } else {
      out[i++] = '?';
    }
  }
  out[n] = '\0';
  return out;
}

static void set_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

static void png_text(void* self, double x, double y, const char* s, plot_anchor anchor, bool vcenter, double size,
                     bool bold, bool vertical) {
  cairo_t* cr = ((painter*)self)->cr;
  char* str = valid_utf8(s);
  if (!str) return; /* out of memory: the text is left out */
  cairo_save(cr);
  set_font(cr, size, bold);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_translate(cr, x, y);
  if (vertical) cairo_rotate(cr, -0.5 * kPi); /* 90° counter-clockwise on screen (y down) */
  cairo_text_extents_t te;
  cairo_text_extents(cr, str, &te);
  double dx = anchor == PLOT_ANCHOR_START ? 0 : anchor == PLOT_ANCHOR_MIDDLE ? -0.5 * te.x_advance : -te.x_advance;
  double dy = 0;
  if (vcenter) { /* the middle of the font's ascent and descent at y */
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    dy = 0.5 * (fe.ascent - fe.descent);
  }
  cairo_move_to(cr, dx, dy);
  cairo_show_text(cr, str);
  cairo_new_path(cr);
  cairo_restore(cr);
  free(str);
}

static void png_clip_begin(void* self, double x, double y, double w, double h) {
  cairo_t* cr = ((painter*)self)->cr;
  cairo_save(cr);
  cairo_rectangle(cr, x, y, w, h);
  cairo_clip(cr);
}

static void png_clip_end(void* self) {
  cairo_restore(((painter*)self)->cr);
}

/* The advance per character of body text: the largest mean advance of the legend entries
 * and of a sample of the energy lines, so that plot_canvas_size's longest entry times it
 * bounds the width of every entry. */
static double body_char_width(cairo_t* cr, const plot_data* d) {
  static const char kSample[] = "change -54.6 J start 80.1939 J";
  cairo_text_extents_t te;
  set_font(cr, BODY_SIZE, false);
  cairo_text_extents(cr, kSample, &te);
  double w = te.x_advance / (double)(sizeof(kSample) - 1);
  for (int k = 0; k < d->num_series; ++k) {
    size_t n = strlen(d->names[k]);
    char* name = n > 0 ? valid_utf8(d->names[k]) : NULL;
    if (!name) continue;
    cairo_text_extents(cr, name, &te);
    free(name);
    if (te.x_advance / (double)n > w) w = te.x_advance / (double)n;
  }
  return w;
}

typedef struct {
  FILE* f;
  int error; /* errno of the first failed write */
} sink;

static cairo_status_t write_file(void* closure, const unsigned char* data, unsigned int length) {
  sink* out = closure;
  if (fwrite(data, 1, length, out->f) == length) return CAIRO_STATUS_SUCCESS;
  if (!out->error) out->error = errno;
  return CAIRO_STATUS_WRITE_ERROR;
}

static bool draw_and_write(const char* path, const plot_data* data, char* err, size_t err_size) {
  /* The text advance fixes the canvas size, so it is measured on a scratch surface first. */
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t* cr = cairo_create(surface);
  double char_width = body_char_width(cr, data);
  cairo_status_t st = cairo_status(cr);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    snprintf(err, err_size, "cannot draw the plot: %s", cairo_status_to_string(st));
    return false;
  }

  painter p = {NULL, 0, 0, 0};
  plot_backend be = {&p, 0, 0, char_width, png_rect, png_line, png_polyline_begin, png_polyline_point,
                     png_polyline_end, png_text, png_clip_begin, png_clip_end};
  plot_canvas_size(data, be.char_width, &be.width, &be.height);
  surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, be.width, be.height);
  p.cr = cairo_create(surface);
  plot_draw(&be, data);
  st = cairo_status(p.cr);
  cairo_destroy(p.cr);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surface);
    snprintf(err, err_size, "cannot draw the plot: %s", cairo_status_to_string(st));
    return false;
  }

  /* Written through a stream so that a failure keeps its errno. */
  sink out = {fopen(path, "wb"), 0};
  if (!out.f) {
    cairo_surface_destroy(surface);
    snprintf(err, err_size, "cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  st = cairo_surface_write_to_png_stream(surface, write_file, &out);
  cairo_surface_destroy(surface);
  if (fclose(out.f) != 0 && !out.error) out.error = errno ? errno : EIO;
  if (st != CAIRO_STATUS_SUCCESS || out.error) {
    snprintf(err, err_size, "cannot write '%s': %s", path,
             out.error ? strerror(out.error) : cairo_status_to_string(st));
    return false;
  }
  return true;
}

bool plot_write_png(const char* path, const plot_data* data, char* err, size_t err_size) {
  bool ok = draw_and_write(path, data, err, err_size);
  /* No cairo object is left and nothing else in mbt uses cairo or fontconfig, so their
   * caches (fonts, patterns) are released here: otherwise LeakSanitizer and valgrind report
   * fontconfig's blocks at exit. FcFini asserts that no fontconfig cache is still referenced,
   * which holds once cairo's font map is gone. */
  cairo_debug_reset_static_data();
  FcFini();
  return ok;
}
