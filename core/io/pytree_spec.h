#pragma once
// torch.utils._pytree's serialized TreeSpec (a program's in_spec and out_spec): how a forward's
// arguments and results nest (tuples, lists, dicts, output classes) around the flat values the
// graph takes and returns. Graft flattens sample inputs by it and names each flat value by its
// path: "d.a", "logits", "past_key_values.0.1".
#include <ATen/core/ivalue.h>

#include <QtCore/QString>
#include <QtCore/QStringList>
#include <optional>
#include <vector>

namespace graft::core::io {

struct TreeSpec {
  QString type;         // "builtins.tuple", "builtins.dict", a class name; empty for a leaf
  QStringList keys;     // a dict's (or output class's) keys, in order; empty otherwise
  std::vector<TreeSpec> children;
  bool isLeaf() const { return type.isEmpty() && children.empty(); }
};

// Parses the serialized form: [1, {"type": …, "context": "<json>", "children_spec": [...]}].
// nullopt for anything else.
std::optional<TreeSpec> parseTreeSpec(const QString& serialized);

// The path of every leaf, depth first: list and tuple items by index, dict items by key, joined
// with ".". `rootNames` names the root's children instead (a forward's argument names).
QStringList leafPaths(const TreeSpec& spec, const QStringList& rootNames = {});

// A forward's in_spec (args, kwargs) as flat leaf paths: positional arguments by `argNames`,
// keyword arguments by their keys ("x", "d.a", "d.b", "scale").
QStringList inputPaths(const TreeSpec& inSpec, const QStringList& argNames);

// `value` flattened as `spec` says: dict items in the spec's key order, a missing key or a
// structure that does not fit is an error (nullopt, `error` set).
std::optional<std::vector<c10::IValue>> flattenBySpec(const c10::IValue& value, const TreeSpec& spec, QString* error);

}  // namespace graft::core::io
