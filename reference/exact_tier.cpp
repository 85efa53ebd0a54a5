// Compiles Reference<ExactReal> once, so that users of the reference do not each pay for it.
#include "reference/reference_impl.hpp"

namespace peconform {
template class Reference<ExactReal>;
}  // namespace peconform
