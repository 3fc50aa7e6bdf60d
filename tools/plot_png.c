/* plot_png.c: the PNG backend of the simulate plot: an RGB raster with anti-aliased lines
 * and a 5x7 bitmap font, encoded as PNG (RFC 2083) with a zlib stream (RFC 1950) of one
 * fixed-Huffman deflate block (RFC 1951 §3.2.6) whose only matches are runs (distance 1)
 * over rows filtered with PNG's "Up" filter: plots are mostly flat color, so this is small
 * without a compression library. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

/* Classic 5x7 font, ASCII 32..126: 5 columns per glyph, bit r of a column is row r (top 0;
 * the baseline is below row 6). g, j, p, q, y are redrawn with descenders in rows 7-8. */
static const uint16_t kFont[95][5] = {
    {0x000, 0x000, 0x000, 0x000, 0x000}, {0x000, 0x000, 0x05F, 0x000, 0x000}, {0x000, 0x007, 0x000, 0x007, 0x000},
    {0x014, 0x07F, 0x014, 0x07F, 0x014}, {0x024, 0x02A, 0x07F, 0x02A, 0x012}, {0x023, 0x013, 0x008, 0x064, 0x062},
    {0x036, 0x049, 0x055, 0x022, 0x050}, {0x000, 0x005, 0x003, 0x000, 0x000}, {0x000, 0x01C, 0x022, 0x041, 0x000},
    {0x000, 0x041, 0x022, 0x01C, 0x000}, {0x008, 0x02A, 0x01C, 0x02A, 0x008}, {0x008, 0x008, 0x03E, 0x008, 0x008},
    {0x000, 0x050, 0x030, 0x000, 0x000}, {0x008, 0x008, 0x008, 0x008, 0x008}, {0x000, 0x060, 0x060, 0x000, 0x000},
    {0x020, 0x010, 0x008, 0x004, 0x002}, {0x03E, 0x051, 0x049, 0x045, 0x03E}, {0x000, 0x042, 0x07F, 0x040, 0x000},
    {0x042, 0x061, 0x051, 0x049, 0x046}, {0x021, 0x041, 0x045, 0x04B, 0x031}, {0x018, 0x014, 0x012, 0x07F, 0x010},
    {0x027, 0x045, 0x045, 0x045, 0x039}, {0x03C, 0x04A, 0x049, 0x049, 0x030}, {0x001, 0x071, 0x009, 0x005, 0x003},
    {0x036, 0x049, 0x049, 0x049, 0x036}, {0x006, 0x049, 0x049, 0x029, 0x01E}, {0x000, 0x036, 0x036, 0x000, 0x000},
    {0x000, 0x056, 0x036, 0x000, 0x000}, {0x008, 0x014, 0x022, 0x041, 0x000}, {0x014, 0x014, 0x014, 0x014, 0x014},
    {0x000, 0x041, 0x022, 0x014, 0x008}, {0x002, 0x001, 0x051, 0x009, 0x006}, {0x032, 0x049, 0x079, 0x041, 0x03E},
    {0x07E, 0x011, 0x011, 0x011, 0x07E}, {0x07F, 0x049, 0x049, 0x049, 0x036}, {0x03E, 0x041, 0x041, 0x041, 0x022},
    {0x07F, 0x041, 0x041, 0x022, 0x01C}, {0x07F, 0x049, 0x049, 0x049, 0x041}, {0x07F, 0x009, 0x009, 0x001, 0x001},
    {0x03E, 0x041, 0x041, 0x051, 0x032}, {0x07F, 0x008, 0x008, 0x008, 0x07F}, {0x000, 0x041, 0x07F, 0x041, 0x000},
    {0x020, 0x040, 0x041, 0x03F, 0x001}, {0x07F, 0x008, 0x014, 0x022, 0x041}, {0x07F, 0x040, 0x040, 0x040, 0x040},
    {0x07F, 0x002, 0x004, 0x002, 0x07F}, {0x07F, 0x004, 0x008, 0x010, 0x07F}, {0x03E, 0x041, 0x041, 0x041, 0x03E},
    {0x07F, 0x009, 0x009, 0x009, 0x006}, {0x03E, 0x041, 0x051, 0x021, 0x05E}, {0x07F, 0x009, 0x019, 0x029, 0x046},
    {0x046, 0x049, 0x049, 0x049, 0x031}, {0x001, 0x001, 0x07F, 0x001, 0x001}, {0x03F, 0x040, 0x040, 0x040, 0x03F},
    {0x01F, 0x020, 0x040, 0x020, 0x01F}, {0x07F, 0x020, 0x018, 0x020, 0x07F}, {0x063, 0x014, 0x008, 0x014, 0x063},
    {0x003, 0x004, 0x078, 0x004, 0x003}, {0x061, 0x051, 0x049, 0x045, 0x043}, {0x000, 0x07F, 0x041, 0x041, 0x000},
    {0x002, 0x004, 0x008, 0x010, 0x020}, {0x000, 0x041, 0x041, 0x07F, 0x000}, {0x004, 0x002, 0x001, 0x002, 0x004},
    {0x040, 0x040, 0x040, 0x040, 0x040}, {0x000, 0x001, 0x002, 0x004, 0x000}, {0x020, 0x054, 0x054, 0x054, 0x078},
    {0x07F, 0x048, 0x044, 0x044, 0x038}, {0x038, 0x044, 0x044, 0x044, 0x020}, {0x038, 0x044, 0x044, 0x048, 0x07F},
    {0x038, 0x054, 0x054, 0x054, 0x018}, {0x008, 0x07E, 0x009, 0x001, 0x002}, {0x038, 0x144, 0x144, 0x144, 0x0FC},
    {0x07F, 0x008, 0x004, 0x004, 0x078}, {0x000, 0x044, 0x07D, 0x040, 0x000}, {0x080, 0x100, 0x100, 0x104, 0x0FD},
    {0x000, 0x07F, 0x010, 0x028, 0x044}, {0x000, 0x041, 0x07F, 0x040, 0x000}, {0x07C, 0x004, 0x018, 0x004, 0x078},
    {0x07C, 0x008, 0x004, 0x004, 0x078}, {0x038, 0x044, 0x044, 0x044, 0x038}, {0x1FC, 0x044, 0x044, 0x044, 0x038},
    {0x038, 0x044, 0x044, 0x044, 0x1FC}, {0x07C, 0x008, 0x004, 0x004, 0x008}, {0x048, 0x054, 0x054, 0x054, 0x020},
    {0x004, 0x03F, 0x044, 0x040, 0x020}, {0x03C, 0x040, 0x040, 0x020, 0x07C}, {0x01C, 0x020, 0x040, 0x020, 0x01C},
    {0x03C, 0x040, 0x030, 0x040, 0x03C}, {0x044, 0x028, 0x010, 0x028, 0x044}, {0x03C, 0x140, 0x140, 0x140, 0x0FC},
    {0x044, 0x064, 0x054, 0x04C, 0x044}, {0x000, 0x008, 0x036, 0x041, 0x000}, {0x000, 0x000, 0x07F, 0x000, 0x000},
    {0x000, 0x041, 0x036, 0x008, 0x000}, {0x008, 0x004, 0x008, 0x010, 0x008}
};

/* ---- raster ------------------------------------------------------------------------- */
typedef struct {
  int w, h;
  uint8_t* rgb;                  /* w*h*3 */
  double cx0, cy0, cx1, cy1;     /* clip rectangle */
  /* open polyline */
  uint8_t color[3];
  double width;
  int dash;
  bool have_last;
  double lx, ly, dist;           /* last point and length drawn so far (for dashes) */
} raster;

static void parse_color(const char* hex, uint8_t out[3]) {
  unsigned v = 0;
  if (hex && hex[0] == '#') v = (unsigned)strtoul(hex + 1, NULL, 16);
  out[0] = (uint8_t)(v >> 16);
  out[1] = (uint8_t)(v >> 8);
  out[2] = (uint8_t)v;
}

/* Blends color over pixel (x, y) with coverage a in [0, 1], inside the clip rectangle. */
static void blend(raster* r, int x, int y, const uint8_t c[3], double a) {
  if (x < 0 || y < 0 || x >= r->w || y >= r->h || a <= 0) return;
  if (x < r->cx0 || x >= r->cx1 || y < r->cy0 || y >= r->cy1) return;
  if (a > 1) a = 1;
  uint8_t* p = r->rgb + ((size_t)y * r->w + x) * 3;
  for (int k = 0; k < 3; ++k) p[k] = (uint8_t)lround(p[k] + a * ((double)c[k] - p[k]));
}

/* Dash pattern (on, period) in px; period 0 is solid. */
static void dash_pattern(int dash, double* on, double* period) {
  *on = dash == 1 ? 6 : 2;
  *period = dash == 1 ? 9 : dash == 2 ? 4 : 0;
}

/* An anti-aliased segment of the given width: coverage from the distance of each pixel
 * center to the segment. dist0 is the length along the polyline at (x1, y1). */
static void segment(raster* r, double x1, double y1, double x2, double y2, const uint8_t c[3], double width,
                    int dash, double dist0) {
  double half = 0.5 * width, dx = x2 - x1, dy = y2 - y1, len2 = dx * dx + dy * dy, len = sqrt(len2);
  double on, period;
  dash_pattern(dash, &on, &period);
  int xa = (int)floor(fmin(x1, x2) - half - 1), xb = (int)ceil(fmax(x1, x2) + half + 1);
  int ya = (int)floor(fmin(y1, y2) - half - 1), yb = (int)ceil(fmax(y1, y2) + half + 1);
  if (xa < 0) xa = 0;
  if (ya < 0) ya = 0;
  if (xb > r->w - 1) xb = r->w - 1;
  if (yb > r->h - 1) yb = r->h - 1;
  for (int y = ya; y <= yb; ++y) {
    for (int x = xa; x <= xb; ++x) {
      double px = x + 0.5 - x1, py = y + 0.5 - y1;
      double u = len2 > 0 ? (px * dx + py * dy) / len2 : 0;
      if (u < 0) u = 0;
      if (u > 1) u = 1;
      double ex = px - u * dx, ey = py - u * dy;
      double a = half + 0.5 - sqrt(ex * ex + ey * ey);
      if (a <= 0) continue;
      if (period > 0 && fmod(dist0 + u * len, period) >= on) continue;
      blend(r, x, y, c, a);
    }
  }
}

static void png_rect(void* self, double x, double y, double w, double h, const char* stroke, const char* fill) {
  raster* r = self;
  uint8_t c[3];
  if (fill) {
    parse_color(fill, c);
    for (int py = (int)lround(y); py < (int)lround(y + h); ++py)
      for (int px = (int)lround(x); px < (int)lround(x + w); ++px) blend(r, px, py, c, 1);
  }
  if (stroke) {
    parse_color(stroke, c);
    segment(r, x, y, x + w, y, c, 1, 0, 0);
    segment(r, x + w, y, x + w, y + h, c, 1, 0, 0);
    segment(r, x + w, y + h, x, y + h, c, 1, 0, 0);
    segment(r, x, y + h, x, y, c, 1, 0, 0);
  }
}

static void png_line(void* self, double x1, double y1, double x2, double y2, const char* color, double width,
                     int dash) {
  raster* r = self;
  uint8_t c[3];
  parse_color(color, c);
  /* Thin axis-parallel lines on pixel centers so they stay crisp. */
  if (width <= 1 && (x1 == x2 || y1 == y2)) {
    x1 = floor(x1) + 0.5, x2 = floor(x2) + 0.5, y1 = floor(y1) + 0.5, y2 = floor(y2) + 0.5;
  }
  segment(r, x1, y1, x2, y2, c, width, dash, 0);
}

static void png_polyline_begin(void* self, const char* color, double width, int dash) {
  raster* r = self;
  parse_color(color, r->color);
  r->width = width;
  r->dash = dash;
  r->have_last = false;
  r->dist = 0;
}

static void png_polyline_point(void* self, double x, double y) {
  raster* r = self;
  if (r->have_last) {
    segment(r, r->lx, r->ly, x, y, r->color, r->width, r->dash, r->dist);
    r->dist += hypot(x - r->lx, y - r->ly);
  }
  r->lx = x, r->ly = y, r->have_last = true;
}

static void png_polyline_end(void* self) {
  raster* r = self;
  if (r->have_last) segment(r, r->lx, r->ly, r->lx, r->ly, r->color, r->width, 0, 0); /* a lone point */
  r->have_last = false;
}

/* Glyph scale for a font size in px (the font is 7 px high). */
static int glyph_scale(double size) {
  int s = (int)lround(size / 6.5);
  return s < 1 ? 1 : s;
}

static void png_text(void* self, double x, double y, const char* s, plot_anchor anchor, bool vcenter, double size,
                     bool bold, bool vertical) {
  raster* r = self;
  static const uint8_t black[3] = {0x22, 0x22, 0x22};
  int sc = glyph_scale(size), adv = 6 * sc;
  int n = 0;
  for (const char* p = s; *p; ++p)
    if (((unsigned char)*p & 0xC0) != 0x80) ++n;
  double len = (double)n * adv - sc;
  double dx0 = anchor == PLOT_ANCHOR_START ? 0 : anchor == PLOT_ANCHOR_MIDDLE ? -0.5 * len : -len;
  double dy0 = vcenter ? -3.5 * sc : -7.0 * sc; /* offset of the glyph top from y */
  int k = 0;
  for (const char* p = s; *p; ++p) {
    unsigned char ch = (unsigned char)*p;
    if ((ch & 0xC0) == 0x80) continue; /* UTF-8 continuation: the lead byte drew '?' */
    int g = ch >= 32 && ch <= 126 ? ch - 32 : '?' - 32;
    for (int col = 0; col < 5; ++col) {
      for (int row = 0; row < 9; ++row) {
        if (!(kFont[g][col] >> row & 1)) continue;
        for (int b = 0; b <= (bold ? 1 : 0); ++b) {
          for (int sy = 0; sy < sc; ++sy) {
            for (int sx = 0; sx < sc; ++sx) {
              double dx = dx0 + k * adv + col * sc + sx + b, dy = dy0 + row * sc + sy;
              /* rotate(-90) about (x, y): (dx, dy) -> (dy, -dx). */
              double px = vertical ? x + dy : x + dx, py = vertical ? y - dx - 1 : y + dy;
              blend(r, (int)floor(px), (int)floor(py), black, 1);
            }
          }
        }
      }
    }
    ++k;
  }
}

static void png_clip_begin(void* self, double x, double y, double w, double h) {
  raster* r = self;
  r->cx0 = x, r->cy0 = y, r->cx1 = x + w, r->cy1 = y + h;
}

static void png_clip_end(void* self) {
  raster* r = self;
  r->cx0 = 0, r->cy0 = 0, r->cx1 = r->w, r->cy1 = r->h;
}

/* ---- PNG encoding ----------------------------------------------------------------- */
typedef struct {
  uint8_t* data;
  size_t len, cap;
  uint32_t bits;  /* pending bits, LSB first */
  int nbits;
  bool failed;
} bytes;

static void put_byte(bytes* b, uint8_t v) {
  if (b->failed) return;
  if (b->len == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 1 << 16;
    uint8_t* d = realloc(b->data, cap);
    if (!d) {
      b->failed = true;
      return;
    }
    b->data = d;
    b->cap = cap;
  }
  b->data[b->len++] = v;
}

/* Deflate bit packing: values LSB first; Huffman codes are sent most significant bit first. */
static void put_bits(bytes* b, uint32_t value, int n) {
  b->bits |= value << b->nbits;
  b->nbits += n;
  while (b->nbits >= 8) {
    put_byte(b, (uint8_t)b->bits);
    b->bits >>= 8;
    b->nbits -= 8;
  }
}
static void put_code(bytes* b, uint32_t code, int n) {
  uint32_t rev = 0;
  for (int i = 0; i < n; ++i) rev |= ((code >> i) & 1u) << (n - 1 - i);
  put_bits(b, rev, n);
}

/* Fixed literal/length code (RFC 1951 §3.2.6). */
static void put_symbol(bytes* b, int sym) {
  if (sym < 144)
    put_code(b, 0x30u + (uint32_t)sym, 8);
  else if (sym < 256)
    put_code(b, 0x190u + (uint32_t)(sym - 144), 9);
  else if (sym < 280)
    put_code(b, (uint32_t)(sym - 256), 7);
  else
    put_code(b, 0xC0u + (uint32_t)(sym - 280), 8);
}

/* A match of length 3..258 at distance 1. */
static void put_run(bytes* b, int length) {
  static const int base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                               31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const int extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  int i = 28;
  while (base[i] > length) --i;
  put_symbol(b, 257 + i);
  if (extra[i]) put_bits(b, (uint32_t)(length - base[i]), extra[i]);
  put_code(b, 0, 5); /* distance code 0: distance 1 */
}

static uint32_t crc_table[256];
static void crc_init(void) {
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}
static uint32_t crc32_of(const uint8_t* p, size_t n, uint32_t crc) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

static void put_be32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static bool write_chunk(FILE* f, const char* type, const uint8_t* data, size_t n) {
  uint8_t head[8], tail[4];
  put_be32(head, (uint32_t)n);
  memcpy(head + 4, type, 4);
  uint32_t crc = crc32_of((const uint8_t*)type, 4, 0);
  crc = crc32_of(data, n, crc);
  put_be32(tail, crc);
  return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) && fwrite(tail, 1, 4, f) == 4;
}

/* The zlib stream of the filtered image. */
static bool encode(const raster* r, bytes* z) {
  size_t stride = (size_t)r->w * 3;
  size_t total = (stride + 1) * (size_t)r->h;
  uint8_t* raw = malloc(total);
  if (!raw) return false;
  for (int y = 0; y < r->h; ++y) {
    uint8_t* out = raw + (size_t)y * (stride + 1);
    const uint8_t* row = r->rgb + (size_t)y * stride;
    out[0] = 2; /* filter "Up": Raw(x) − Prior(x) */
    for (size_t i = 0; i < stride; ++i) out[1 + i] = (uint8_t)(row[i] - (y > 0 ? row[i - stride] : 0));
  }
  put_byte(z, 0x78); /* CMF: deflate, 32K window */
  put_byte(z, 0x01); /* FLG: (0x78·256 + 0x01) % 31 == 0 */
  put_bits(z, 1, 1); /* BFINAL */
  put_bits(z, 1, 2); /* BTYPE 01: fixed Huffman codes */
  size_t i = 0;
  while (i < total) {
    size_t run = 0;
    if (i > 0)
      while (run < 258 && i + run < total && raw[i + run] == raw[i - 1]) ++run;
    if (run >= 3) {
      put_run(z, (int)run);
      i += run;
    } else {
      put_symbol(z, raw[i]);
      ++i;
    }
  }
  put_symbol(z, 256); /* end of block */
  if (z->nbits > 0) put_bits(z, 0, 8 - z->nbits);
  /* Adler-32 of the uncompressed data (RFC 1950). */
  uint32_t a = 1, b = 0;
  for (size_t k = 0; k < total; ++k) {
    a = (a + raw[k]) % 65521u;
    b = (b + a) % 65521u;
  }
  free(raw);
  uint8_t adler[4];
  put_be32(adler, (b << 16) | a);
  for (int k = 0; k < 4; ++k) put_byte(z, adler[k]);
  return !z->failed;
}

bool plot_write_png(const char* path, const plot_data* data, char* err, size_t err_size) {
  raster r;
  memset(&r, 0, sizeof(r));
  plot_backend be = {&r, 0, 0, 12.0, png_rect, png_line, png_polyline_begin, png_polyline_point,
                     png_polyline_end, png_text, png_clip_begin, png_clip_end};
  plot_canvas_size(data, be.char_width, &be.width, &be.height);
  r.w = be.width, r.h = be.height;
  r.rgb = malloc((size_t)r.w * r.h * 3);
  if (!r.rgb) {
    snprintf(err, err_size, "out of memory for the plot");
    return false;
  }
  memset(r.rgb, 0xFF, (size_t)r.w * r.h * 3);
  png_clip_end(&r);
  plot_draw(&be, data);

  crc_init();
  bytes z = {NULL, 0, 0, 0, 0, false};
  bool ok = encode(&r, &z);
  free(r.rgb);
  if (!ok) {
    free(z.data);
    snprintf(err, err_size, "out of memory for the plot");
    return false;
  }
  FILE* f = fopen(path, "wb");
  if (!f) {
    free(z.data);
    snprintf(err, err_size, "cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  uint8_t ihdr[13];
  put_be32(ihdr, (uint32_t)r.w);
  put_be32(ihdr + 4, (uint32_t)r.h);
  ihdr[8] = 8;  /* bit depth */
  ihdr[9] = 2;  /* color type: RGB */
  ihdr[10] = 0; /* deflate */
  ihdr[11] = 0; /* adaptive filtering */
  ihdr[12] = 0; /* no interlace */
  ok = fwrite(signature, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) && write_chunk(f, "IDAT", z.data, z.len) &&
       write_chunk(f, "IEND", NULL, 0);
  free(z.data);
  if (fclose(f) != 0) ok = false;
  if (!ok) snprintf(err, err_size, "cannot write '%s'", path);
  return ok;
}
