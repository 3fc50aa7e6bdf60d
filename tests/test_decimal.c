/* Tests of the URDF loader's number reader (src/parsers/decimal.h): bit for bit the double that
 * strtod reads from the same text (the C locale), and the same tokens refused, over random
 * doubles printed in every usual format, random significands with every decimal exponent the
 * exact paths cover and beyond, values exactly halfway between two doubles and next to them. */
#include "support/test_util.h"

#include "parsers/decimal.h"

/* A generator of its own: 64 random bits (xorshift64*). */
static uint64_t bits_state = 0x2545F4914F6CDD1Dull;
static uint64_t random_bits(void) {
  bits_state ^= bits_state >> 12;
  bits_state ^= bits_state << 25;
  bits_state ^= bits_state >> 27;
  return bits_state * 0x2545F4914F6CDD1Dull;
}

/* strtod's reading: the whole token, no hexadecimal, shorter than 512 bytes. */
static int reference(const char* s, double* out) {
  char* end = NULL;
  if (!s[0] || strlen(s) >= 512 || strpbrk(s, "xX")) return -1;
  const double v = strtod(s, &end);
  if (*end) return -1;
  *out = v;
  return 0;
}

static int parse(const char* s, double* out) { return mbt__decimal_parse(s, s + strlen(s), out); }

static void expect_same(const char* s) {
  double want = 0, got = 0;
  const int rw = reference(s, &want), rg = parse(s, &got);
  if (rw != rg || (rw == 0 && memcmp(&want, &got, sizeof got) != 0 && !(isnan(want) && isnan(got))))
    print_error("'%s': got %d, %.17g; strtod %d, %.17g\n", s, rg, got, rw, want);
  assert_int_equal(rg, rw);
  if (rw == 0 && !isnan(want)) assert_memory_equal(&got, &want, sizeof got);
}

static double random_double(void) {
  uint64_t u = random_bits();
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

static void test_random_doubles(void** state) {
  (void)state;
  static const char* const formats[] = {"%.17g", "%.16g", "%.15g", "%.6g", "%.3g", "%.9e", "%.17e", "%.20f", "%g"};
  char s[600];
  for (int i = 0; i < 200000; ++i) {
    double x = random_double();
    if (i % 2) x = ldexp(x - floor(x), (int)(random_bits() % 120) - 60); /* |x| near 1, most tokens */
    if (!isfinite(x)) continue;
    snprintf(s, sizeof s, formats[i % 9], x);
    expect_same(s);
  }
}

/* w·10^e written as "w", "wEe", "w.ddde±x", ".000w": significands of 1 to 20 digits, exponents
 * from −40 to 40 (the exact paths take up to 19 digits and ±27). */
static void test_random_significands(void** state) {
  (void)state;
  char s[128];
  for (int i = 0; i < 300000; ++i) {
    const int digits = 1 + (int)(random_bits() % 20);
    char w[32];
    for (int k = 0; k < digits; ++k) w[k] = (char)('0' + random_bits() % 10);
    w[digits] = '\0';
    const int e = (int)(random_bits() % 81) - 40;
    const int point = (int)(random_bits() % (unsigned)(digits + 1));
    const char* sign = random_bits() % 2 ? "-" : (random_bits() % 2 ? "+" : "");
    switch (i % 4) {
      case 0: snprintf(s, sizeof s, "%s%se%d", sign, w, e); break;
      case 1: snprintf(s, sizeof s, "%s%.*s.%sE%+d", sign, point, w, w + point, e); break;
      case 2: snprintf(s, sizeof s, "%s0.%s%s", sign, &"0000000"[random_bits() % 8], w); break;
      default: snprintf(s, sizeof s, "%s%.*s.%s", sign, point, w, w + point); break;
    }
    expect_same(s);
  }
}

/* Values exactly halfway between two doubles (ties to even), and the decimals just beside them:
 * m·2^−j for odd 54-bit m, written as (m·5^k·2^(k−j))·10^−k, and integers between 2^53 and 2^64. */
static void test_ties(void** state) {
  (void)state;
  char s[64];
  for (int i = 0; i < 100000; ++i) {
    const uint64_t m = ((uint64_t)1 << 53) | (random_bits() >> 11) | 1; /* odd, 54 bits */
    const int k = 1 + (int)(random_bits() % 3), j = 1 + (int)(random_bits() % (unsigned)k);
    uint64_t w = m;
    for (int t = 0; t < k; ++t) w *= 5;
    w <<= k - j;
    for (int d = -1; d <= 1; ++d) {
      snprintf(s, sizeof s, "%llue-%d", (unsigned long long)(w + (uint64_t)d), k);
      expect_same(s);
    }
    const int shift = 1 + (int)(random_bits() % 10);
    const uint64_t tie = (m << shift) | ((uint64_t)1 << (shift - 1)); /* 54 + shift bits, halfway */
    for (int d = -1; d <= 1; ++d) {
      snprintf(s, sizeof s, "%llu", (unsigned long long)(tie + (uint64_t)d));
      expect_same(s);
    }
  }
}

static void test_forms(void** state) {
  (void)state;
  static const char* const tokens[] = {
      "0", "-0", "+0", "0.0", "-0.0e5", "00000", ".5", "5.", "-.5e-3", "1e0", "1E+2", "1e-0", "9007199254740993",
      "9007199254740995", "18446744073709551615", "18446744073709551616", "99999999999999999999", "1e22", "1e23",
      "1e27", "1e28", "1e-22", "1e-23", "1e-27", "1e-28", "4.9406564584124654e-324", "2.2250738585072011e-308",
      "1.7976931348623157e308", "1.7976931348623159e308", "1e400", "-1e400", "1e-400", "123456789012345678e-27",
      "0.1", "0.2", "0.3", "3.141592653589793", "1.5707963267948966", "-9.81", "1e99999999999", "1e-99999999999",
      "", ".", "+", "-", "e5", "1e", "1e+", "1e-", "1.2.3", "--1", "+-1", "1-", "0x10", "0X1p3", "inf", "-infinity",
      "nan", "NaN", "1,5", "1 ", "1e5x", "١",
      /* rounding up into the next power of two */
      "9007199254740991.5", "18014398509481983", "0.99999999999999999", "9.9999999999999999e22",
      "1.9999999999999999", "4503599627370495.75", "0.1000000000000000055511151231257827"};
  for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; ++i) expect_same(tokens[i]);
  char big[700];
  memset(big, '1', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  expect_same(big); /* 699 bytes: refused */
  big[511] = '\0';
  expect_same(big); /* 511 bytes: read by strtod */
  big[512] = '\0';
  big[511] = '1';
  expect_same(big); /* 512 bytes: refused */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_doubles),
      cmocka_unit_test(test_random_significands),
      cmocka_unit_test(test_ties),
      cmocka_unit_test(test_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
