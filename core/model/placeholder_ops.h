#pragma once
// Stand-ins for operators this libtorch does not have. A torch.export program may call a Python
// library's custom op (transformers' grouped_mm_fallback, anything made with torch.library). Such
// a call is imported as a node of that op with the schema the file implies, registered here with
// conservative aliasing and an operation that refuses to run: libtorch's passes, rewrites and the
// .pt2 writer then treat it as any op, while a run that reaches it is refused before it starts
// (run/unknown_ops.h). libtorch's operator registry is process-wide, so this list is too.
#include <QtCore/QString>

namespace graft::core::model {

// Registers `schema` ("mylib::op.overload(Tensor x, float alpha) -> Tensor") unless an operator of
// that name and overload exists. Returns why it cannot be registered, empty on success.
QString registerPlaceholderOperator(const QString& schema);

// Whether `qualifiedName` ("mylib::op") was registered as a stand-in.
bool isPlaceholderOperator(const QString& qualifiedName);

}  // namespace graft::core::model
