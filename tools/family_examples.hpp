#pragma once
// One working example spec per family, for `peconform list` (tests parse every one).
#include <array>
#include <string_view>

namespace peconform {

struct FamilyExample {
  std::string_view family;
  std::string_view spec;
  std::string_view what;
};

inline constexpr std::array<FamilyExample, 10> kFamilyExamples{{
    {"sinusoidal", "sinusoidal(d=4,base=10000,layout=interleaved)", "absolute sinusoid; t2t/fairseq: layout=half,freq=geometric"},
    {"learned", "learned(d=4,rows=16)", "learned absolute table gather; --input is the rows*d table"},
    {"rope", "rope(d=4,base=10000,layout=interleaved)", "rotary; interleaved = GPT-J/Meta, half = GPT-NeoX/HF"},
    {"xpos", "xpos(d=4,base=10000,layout=interleaved)", "xPos: rotary with per-pair exponential scale"},
    {"mrope", "mrope(d=16,base=10000,layout=half,sections=[2,3,3])", "multimodal rotary (Qwen2-VL); positions t:h:w"},
    {"rope2d", "rope2d(d=8,base=100,layout=interleaved)", "axial 2-D rotary (vision); positions x:y"},
    {"alibi", "alibi(heads=12)", "ALiBi linear bias per head; --pairs i:j"},
    {"t5", "t5(buckets=32,max_distance=128)", "T5 relative position bucket; --pairs i:j"},
    {"shaw", "shaw(k=4)", "Shaw clipped relative index; --pairs i:j"},
    {"xl", "xl(d=8,base=10000)", "Transformer-XL relative sinusoid R(i-j); --pairs i:j"},
}};

}  // namespace peconform
