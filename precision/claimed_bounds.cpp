#include "precision/claimed_bounds.hpp"

#include "precision/error_model.hpp"

namespace peconform {

struct ClaimedBounds::State {
  Reference<FastReal> reference;
};

ClaimedBounds::ClaimedBounds(const Spec& spec, std::int64_t sequence_length)
    : state_(std::make_unique<const State>(State{Reference<FastReal>(spec, sequence_length)})) {}
ClaimedBounds::~ClaimedBounds() = default;
ClaimedBounds::ClaimedBounds(ClaimedBounds&&) noexcept = default;
ClaimedBounds& ClaimedBounds::operator=(ClaimedBounds&&) noexcept = default;

std::vector<Wide> ClaimedBounds::operator()(const Point& point, std::span<const Wide> input) const {
  return claimed_error_bounds(state_->reference, point, input);
}

}  // namespace peconform
