#pragma once
// Readable renderings of TorchScript types and constant values, for labels and the inspector.
#include <QtCore/QPair>
#include <QtCore/QString>
#include <QtCore/QVector>

namespace at { class TensorBase; }
namespace c10 { struct IValue; }
namespace torch::jit { struct Value; }

namespace graft::core::model {

// "float32 [1, 64, 56, 56]" for a tensor with known shape, the TorchScript type string otherwise.
QString formatType(const torch::jit::Value* value);
// "float32 [1, 64, 56, 56]": a tensor seen in a run, written as formatType writes a known type.
QString formatTensorType(const at::TensorBase& tensor);
// "[1, 1]", "3", "True", "Tensor float32 [64, 3, 7, 7]"; long lists are abbreviated.
QString formatIValue(const c10::IValue& value);
// How a quantized tensor maps to real numbers, as (name, value) rows: "qscheme"
// ("per_tensor_affine", "per_channel_affine", ...), "scale" and "zero_point" (per channel: the
// range over channels, and "axis"). For a quantized op's packed weight (quantized::conv2d,
// linear) the weight it unpacks to is described. Empty for anything else; never throws.
QVector<QPair<QString, QString>> quantizationFacts(const c10::IValue& value);
// "float32" for at::kFloat and so on.
QString dtypeName(int scalarType);

}  // namespace graft::core::model
