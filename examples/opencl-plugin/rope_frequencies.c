/* exact-angle promises the angle p theta_i to within 2^-50 rad and more (the error model in
 * precision/error_model.hpp), for positions up to 2^31: theta_i to about 2^-82 relative, more
 * than a double or x87's long double holds. So theta_i is formed in binary128 (libquadmath, 113
 * bits: GCC's, which clang links too) from the base as the spec text writes it (pec_spec.base is
 * only the double nearest a decimal such as 63.6), then split into hi + lo. Any double-double
 * pow does as well. */
#include "rope_frequencies.h"

#include <math.h>
#include <quadmath.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __float128 binary128;

/* The decimal after base= in the canonical spec text; the spec's double where the text has
 * none (the default, 10000, which a double holds). */
static binary128 decimal_base(const pec_call* call) {
  const char* at = strstr(call->spec_text, "(base=");
  if (at == NULL) at = strstr(call->spec_text, ",base=");
  return at != NULL ? strtoflt128(at + strlen("(base="), NULL) : (binary128)call->spec->base;
}

void rope_frequencies(const pec_call* call, double* frequencies) {
  const pec_spec* spec = call->spec;
  const binary128 base = decimal_base(call);
  for (int i = 0; i < spec->rot / 2; ++i) {
    if (spec->precision == PEC_EXACT_ANGLE) {
      const binary128 theta = powq(base, -(binary128)(2 * i) / (binary128)spec->rot);
      frequencies[2 * i] = (double)theta;
      frequencies[2 * i + 1] = (double)(theta - (binary128)frequencies[2 * i]);
    } else {
      /* inv_freq = 1.0 / base ** (arange(0, rot, 2).float() / rot), every step in float32 */
      frequencies[2 * i] = (double)(1.0f / powf((float)spec->base, (float)(2 * i) / (float)spec->rot));
      frequencies[2 * i + 1] = 0.0;
    }
  }
}
