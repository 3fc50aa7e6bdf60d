/* decimal.c: decimal text → double (decimal.h).
 *
 * A token d₁…d_n·10^e (n ≤ 19 significant digits, so the integer w = d₁…d_n fits in 64 bits) has
 * the value w·10^e. It is converted exactly, rounded once to the nearest double (ties to even):
 *   - w ≤ 2^53 and |e| ≤ 22: w and 10^|e| are exact doubles, and one IEEE multiplication or
 *     division rounds their product or quotient correctly [Clinger 1990, the fast path];
 *   - 0 ≤ e ≤ 27: w·5^e is an integer below 2^127 (5^27 < 2^63), and the value is w·5^e·2^e;
 *   - −27 ≤ e < 0: with k = −e, w·10^e = (w·2^s / 5^k)·2^(−s−k); the integer quotient q of
 *     w·2^s by 5^k has 55 or 56 bits for s = 55 + bits(5^k) − bits(w), and q with the
 *     remainder's "inexact" bit rounds to 53 bits exactly as the full quotient would.
 * Everything else (more digits, larger exponents, inf, nan, malformed text) is left to strtod. */
#include "parsers/decimal.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxDigits = 19, kMaxTokenBytes = 512 };

/* w·10^e10 with the sign, as read from the text. */
typedef struct {
  uint64_t w;
  int e10;
  bool negative;
} decimal;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight ASCII digits at once in a little-endian 64-bit word [Lemire, fast_float]: whether all
 * eight bytes are '0'..'9', and their value (pairs, then quadruples, combined by multiplies). */
static bool eight_digits(uint64_t v) {
  return ((v & 0xF0F0F0F0F0F0F0F0u) | (((v + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) ==
         0x3333333333333333u;
}

static uint64_t eight_digits_value(uint64_t v) {
  const uint64_t mask = 0x000000FF000000FFu, mul1 = 100 + (1000000ull << 32), mul2 = 1 + (10000ull << 32);
  v -= 0x3030303030303030u;
  v = v * 10 + (v >> 8);
  return (((v & mask) * mul1) + (((v >> 16) & mask) * mul2)) >> 32;
}
#endif

/* The digits from p on, into d->w (leading zeros of w are not significant; each digit of a
 * fraction moves d->e10 down by one). The end of the digits, or NULL past kMaxDigits. */
static inline const char* read_digits(const char* p, const char* e, decimal* d, int* digits, bool fraction) {
  const char* start = p;
  if (d->w == 0)
    while (p < e && *p == '0') ++p;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  while (*digits + 8 <= kMaxDigits && e - p >= 8 && (memcpy(&v, p, 8), eight_digits(v))) {
    d->w = 100000000 * d->w + eight_digits_value(v);
    *digits += 8;
    p += 8;
  }
#endif
  for (; p < e && is_digit(*p); ++p) {
    if (*digits == kMaxDigits) return NULL;
    d->w = 10 * d->w + (uint64_t)(*p - '0');
    ++*digits;
  }
  if (fraction) d->e10 -= (int)(p - start);
  return p;
}

/* [s, e) as [+-]D*[.D*][(e|E)[+-]D+] with at least one mantissa digit and at most kMaxDigits
 * significant ones. False otherwise (the text is then left to strtod). */
static bool read_decimal(const char* s, const char* e, decimal* d) {
  const char* p = s;
  int digits = 0;
  d->w = 0;
  d->e10 = 0;
  d->negative = p < e && *p == '-';
  if (p < e && (*p == '+' || *p == '-')) ++p;
  const char* mantissa = p;
  if (!(p = read_digits(p, e, d, &digits, false))) return false;
  const bool point = p < e && *p == '.';
  if (point && !(p = read_digits(p + 1, e, d, &digits, true))) return false;
  if (p - mantissa == (point ? 1 : 0)) return false; /* no digit */
  if (p < e && (*p == 'e' || *p == 'E')) {
    ++p;
    const bool negative = p < e && *p == '-';
    if (p < e && (*p == '+' || *p == '-')) ++p;
    if (p == e || !is_digit(*p)) return false;
    int x = 0;
    for (; p < e && is_digit(*p); ++p)
      if (x < 100000) x = 10 * x + (*p - '0');
    d->e10 += negative ? -x : x;
  }
  return p == e;
}

static const double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128; /* GCC and Clang */

static int bit_length(u128 x) {
  const uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
  return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* (q + δ)·2^exp2 rounded to the nearest double, ties to even, where 0 ≤ δ < 1 and δ > 0 iff
 * `inexact` (q has more than 53 bits whenever inexact; exp2 ≥ 0 when it has at most 53). The
 * result is a normal double, written as its bits: biased exponent e + 1075 for m·2^e with
 * 2^52 ≤ m < 2^53. */
static double round_to_double(u128 q, bool inexact, int exp2) {
  const int b = bit_length(q);
  if (b <= 53) /* exact: q and 2^exp2 are doubles */
    return exp2 >= 0 && exp2 < 64 ? (double)(uint64_t)q * (double)((uint64_t)1 << exp2) : ldexp((double)(uint64_t)q, exp2);
  const int shift = b - 53;
  uint64_t m = (uint64_t)(q >> shift);
  int e = exp2 + shift;
  const u128 rest = q & (((u128)1 << shift) - 1), half = (u128)1 << (shift - 1);
  if (rest > half || (rest == half && (inexact || (m & 1)))) ++m;
  if (m == (uint64_t)1 << 53) m >>= 1, ++e;
  const uint64_t bits = ((uint64_t)(e + 1075) << 52) | (m & (((uint64_t)1 << 52) - 1));
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* 5^k for k ≤ 27 (all below 2^63). */
static const uint64_t kPow5[28] = {1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u,
                                   9765625u, 48828125u, 244140625u, 1220703125u, 6103515625ull,
                                   30517578125ull, 152587890625ull, 762939453125ull, 3814697265625ull,
                                   19073486328125ull, 95367431640625ull, 476837158203125ull,
                                   2384185791015625ull, 11920928955078125ull, 59604644775390625ull,
                                   298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull};

/* w·10^e10 for |e10| ≤ 27, exactly rounded. */
static double scale_exact(uint64_t w, int e10) {
  if (e10 >= 0) return round_to_double((u128)w * kPow5[e10], false, e10);
  const int k = -e10;
  const uint64_t d = kPow5[k];
  int s = 55 + bit_length(d) - bit_length(w);
  if (s < 0) s = 0;
  const u128 n = (u128)w << s;
  return round_to_double(n / d, n % d != 0, -s - k);
}
#endif

/* The value of d, exactly rounded; false if it is outside the forms above. */
static bool convert(const decimal* d, double* out) {
  double x;
  if (d->w == 0) {
    x = 0;
#if FLT_EVAL_METHOD == 0
  } else if (d->w <= (uint64_t)1 << 53 && d->e10 >= -22 && d->e10 <= 22) {
    x = d->e10 < 0 ? (double)d->w / kPow10[-d->e10] : (double)d->w * kPow10[d->e10];
#endif
#if defined(__SIZEOF_INT128__)
  } else if (d->e10 >= -27 && d->e10 <= 27) {
    x = scale_exact(d->w, d->e10);
#endif
  } else {
    return false;
  }
  *out = d->negative ? -x : x;
  return true;
}

/* strtod on a copy of the token, with '.' as the C locale's decimal point whatever the locale. */
static int parse_with_strtod(const char* s, size_t n, double* out) {
  char buf[kMaxTokenBytes];
  memcpy(buf, s, n);
  buf[n] = '\0';
  for (size_t i = 0; i < n; ++i)
    if (buf[i] == 'x' || buf[i] == 'X') return -1; /* no hexadecimal floats */
  const char* point = localeconv()->decimal_point;
  if (point && point[0] && point[0] != '.' && point[1] == '\0')
    for (size_t i = 0; i < n; ++i)
      if (buf[i] == '.') buf[i] = point[0];
  char* end = NULL;
  const double v = strtod(buf, &end);
  if (end != buf + n) return -1;
  *out = v;
  return 0;
}

int mbt__decimal_parse(const char* s, const char* e, double* out) {
  const size_t n = (size_t)(e - s);
  if (n == 0 || n >= kMaxTokenBytes) return -1;
  decimal d;
  if (read_decimal(s, e, &d) && convert(&d, out)) return 0;
  return parse_with_strtod(s, n, out);
}
