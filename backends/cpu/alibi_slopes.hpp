#pragma once
// ALiBi's head slopes, as the paper's code computes them (ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py get_slopes), in double.
#include <vector>

namespace peconform::cpu {

// n a power of two: m_h = 2^(-8h/n), h = 1 .. n. Otherwise, with c the largest power of two
// below n: the c slopes of c heads, then every other slope of the 2c series, its first n - c
// (12 heads: 2^-1 .. 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5). Throws SpecError for n < 1.
std::vector<double> alibi_slopes(int heads);

// The same series as Bloom forms it in float32 (transformers build_alibi_tensor): with c the
// largest power of two <= n, base = 2^(-8/c) computed in double and cast to float32, slopes
// powf(base, h) for h = 1 .. c; then extra_base = 2^(-4/c) likewise and powf(extra_base, 2i + 1)
// for the remaining n - c heads.
std::vector<float> bloom_slopes(int heads);

// The same series as MPT forms it in float32 (transformers build_mpt_alibi_tensor): with n' the
// power of two at or above n, 1 / powf(2, k (8 / n')) for k = 1 .. n'; for n below n', the even k
// (2, 4, ..: the c-head series), then the odd ones, their first n - c.
std::vector<float> mpt_slopes(int heads);

}  // namespace peconform::cpu
