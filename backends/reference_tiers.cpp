#include "backends/reference_tiers.hpp"

#include "reference/reference.hpp"
#include "reference/tier_bounds.hpp"
#include "reference/tier_conversion.hpp"

namespace peconform {
namespace {

template <class Real> using BoundsFunction = std::vector<Real> (*)(const Reference<Real>&, const Point&, std::span<const Real>);

template <class Real> class TierEvaluator final : public Evaluator {
 public:
  TierEvaluator(const Spec& spec, std::int64_t sequence_length, BoundsFunction<Real> bounds)
      : reference_(spec, sequence_length), bounds_(bounds) {}

  std::vector<Wide> evaluate(const Point& point, std::span<const Wide> input) const override {
    return widen(reference_.evaluate(point, narrow(input)));
  }
  std::vector<Wide> error_bounds(const Point& point, std::span<const Wide> input) const override {
    return widen(bounds_(reference_, point, narrow(input)));
  }

 private:
  static std::vector<Real> narrow(std::span<const Wide> values) {
    if constexpr (std::is_same_v<Real, Wide>) {
      return {values.begin(), values.end()};
    } else {
      std::vector<Real> out;
      out.reserve(values.size());
      for (const Wide& value : values) out.push_back(to_exact_tier(value));
      return out;
    }
  }
  static std::vector<Wide> widen(const std::vector<Real>& values) {
    if constexpr (std::is_same_v<Real, Wide>) {
      return values;
    } else {
      std::vector<Wide> out;
      out.reserve(values.size());
      for (const Real& value : values) out.push_back(to_fast_tier(value));
      return out;
    }
  }

  Reference<Real> reference_;
  BoundsFunction<Real> bounds_;
};

template <class Real> class Tier final : public Implementation {
 public:
  Tier(std::string name, BoundsFunction<Real> bounds) : name_(std::move(name)), bounds_(bounds) {}
  std::string name() const override { return name_; }
  std::unique_ptr<Evaluator> prepare(const Spec& spec, std::int64_t sequence_length) const override {
    return std::make_unique<TierEvaluator<Real>>(spec, sequence_length, bounds_);
  }

 private:
  std::string name_;
  BoundsFunction<Real> bounds_;
};

}  // namespace

const Implementation& exact_tier() {
  static const Tier<ExactReal> tier("exact-tier", &exact_tier_bounds<ExactReal>);
  return tier;
}

const Implementation& fast_tier() {
  static const Tier<FastReal> tier("fast-tier", &fast_tier_bounds<FastReal>);
  return tier;
}

}  // namespace peconform
