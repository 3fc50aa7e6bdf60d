/* plot_svg.c: the SVG backend of the simulate plot: a standalone SVG 1.1 file (no scripts,
 * no external resources). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"

typedef struct {
  FILE* f;
  int on_line;  /* points written in the open polyline */
  int clips;    /* clip paths defined so far */
} svg;

static const char* dash_attr(int dash) {
  return dash == 1 ? " stroke-dasharray=\"6 3\"" : dash == 2 ? " stroke-dasharray=\"2 2\"" : "";
}

static void write_escaped(FILE* f, const char* s) {
  for (; *s; ++s) {
    switch (*s) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      default: fputc(*s, f);
    }
  }
}

static void svg_rect(void* self, double x, double y, double w, double h, const char* stroke, const char* fill) {
  svg* s = self;
  fprintf(s->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" stroke=\"%s\"/>\n", x, y, w, h,
          fill ? fill : "none", stroke ? stroke : "none");
}

static void svg_line(void* self, double x1, double y1, double x2, double y2, const char* color, double width,
                     int dash) {
  svg* s = self;
  fprintf(s->f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"%.2g\"%s/>\n", x1,
          y1, x2, y2, color, width, dash_attr(dash));
}

static void svg_polyline_begin(void* self, const char* color, double width, int dash) {
  svg* s = self;
  fprintf(s->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.2g\" stroke-linejoin=\"round\"%s points=\"",
          color, width, dash_attr(dash));
  s->on_line = 0;
}

static void svg_polyline_point(void* self, double x, double y) {
  svg* s = self;
  fprintf(s->f, "%s%.2f,%.2f", s->on_line == 0 ? "" : (s->on_line % 8 == 0 ? "\n" : " "), x, y);
  s->on_line++;
}

static void svg_polyline_end(void* self) {
  svg* s = self;
  fputs("\"/>\n", s->f);
}

static void svg_text(void* self, double x, double y, const char* str, plot_anchor anchor, bool vcenter, double size,
                     bool bold, bool vertical) {
  svg* s = self;
  static const char* const anchors[] = {"start", "middle", "end"};
  fprintf(s->f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.3g\" text-anchor=\"%s\"%s%s", x, y, size, anchors[anchor],
          vcenter ? " dominant-baseline=\"middle\"" : "", bold ? " font-weight=\"bold\"" : "");
  if (vertical) fprintf(s->f, " transform=\"rotate(-90 %.2f %.2f)\"", x, y);
  fputc('>', s->f);
  write_escaped(s->f, str);
  fputs("</text>\n", s->f);
}

static void svg_clip_begin(void* self, double x, double y, double w, double h) {
  svg* s = self;
  int id = s->clips++;
  fprintf(s->f, "<clipPath id=\"clip%d\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath>\n",
          id, x, y, w, h);
  fprintf(s->f, "<g clip-path=\"url(#clip%d)\">\n", id);
}

static void svg_clip_end(void* self) {
  svg* s = self;
  fputs("</g>\n", s->f);
}

bool plot_write_svg(const char* path, const plot_data* data, char* err, size_t err_size) {
  svg s = {fopen(path, "w"), 0, 0};
  if (!s.f) {
    snprintf(err, err_size, "cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  plot_backend b = {&s, 0, 0, 7.0, svg_rect, svg_line, svg_polyline_begin, svg_polyline_point,
                    svg_polyline_end, svg_text, svg_clip_begin, svg_clip_end};
  plot_canvas_size(data, b.char_width, &b.width, &b.height);
  fprintf(s.f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(s.f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\">\n",
          b.width, b.height, b.width, b.height);
  plot_draw(&b, data);
  fputs("</svg>\n", s.f);
  bool failed = ferror(s.f) != 0;
  int error = errno;
  if (fclose(s.f) != 0) failed = true, error = errno;
  if (failed) {
    snprintf(err, err_size, "cannot write '%s': %s", path, strerror(error));
    return false;
  }
  return true;
}
