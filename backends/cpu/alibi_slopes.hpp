#pragma once
// ALiBi's head slopes, as the paper's code computes them (ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py get_slopes), in double.
#include <vector>

namespace peconform::cpu {

// n a power of two: m_h = 2^(-8h/n), h = 1 .. n. Otherwise, with c the largest power of two
// below n: the c slopes of c heads, then every other slope of the 2c series, its first n - c
// (12 heads: 2^-1 .. 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5). Throws SpecError for n < 1.
std::vector<double> alibi_slopes(int heads);

}  // namespace peconform::cpu
