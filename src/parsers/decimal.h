/* decimal.h: decimal text → double, correctly rounded, independent of the C locale (not installed).
 *
 * The URDF loader reads every number through this: the common forms (at most 19 significant
 * digits, a decimal exponent within ±27 once the point is moved) are converted exactly with
 * integer arithmetic; anything else goes to strtod with the locale's decimal point replaced, so
 * the result is the same double strtod gives for the text in the "C" locale. */
#ifndef MBT_PARSERS_DECIMAL_H
#define MBT_PARSERS_DECIMAL_H

/* Parses the whole token [s, e) (no whitespace inside) as a decimal number: [+-]digits[.digits]
 * [(e|E)[+-]digits], or what strtod reads besides (inf, nan), but no hexadecimal. 0 and *out, or
 * -1 if the token is not such a number. A token that overflows gives ±inf, as strtod does. */
int mbt__decimal_parse(const char* s, const char* e, double* out);

#endif /* MBT_PARSERS_DECIMAL_H */
