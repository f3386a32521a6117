#pragma once
// Edits of a revision's graph: one small value type per kind (as Tiled has one command per edit).
// Each names nodes by NodeId, so it serialises to JSON for the session journal and replays
// against any load of the same file. `apply` never touches the base revision: it edits a clone
// and either returns the next revision or says which node refused and why.
#include "core/model/diagnostic.h"
#include "core/model/revision.h"

#include <QtCore/QJsonObject>
#include <QtCore/QMap>
#include <QtCore/QString>
#include <optional>
#include <variant>

namespace graft::core::edit {

using model::NodeId;

// Removes a node whose output can be replaced by one of its inputs of the same type
// (dropout, identity, relu, contiguous...). The first such input is used.
struct DeleteNode {
  NodeId node = model::kNoNode;
};

// Like DeleteNode, with the input that takes the node's place chosen explicitly.
struct BypassNode {
  NodeId node = model::kNoNode;
  int input = 0;
};

// Inserts `op` ("aten::relu") on the edge into input `input` of `consumer`. The edge's value is
// the op's first argument; other arguments take their schema defaults or the `arguments` given
// as text by name ("negative_slope" -> "0.2").
struct InsertOp {
  NodeId consumer = model::kNoNode;
  int input = 0;
  QString op;
  QMap<QString, QString> arguments;
};

// Replaces a node's operator by `op`, keeping its inputs (matched by position, then by argument
// name) where the new schema accepts them: relu -> gelu, relu -> sigmoid.
struct ReplaceOp {
  NodeId node = model::kNoNode;
  QString op;
};

// Makes input `input` of `consumer` read output `output` of `producer` instead.
struct RewireInput {
  NodeId consumer = model::kNoNode;
  int input = 0;
  NodeId producer = model::kNoNode;
  int output = 0;
};

// Gives the folded constant argument `argument` of `consumer` a new value, written as text
// ("3", "0.5", "True", "[2, 2]", "'tanh'", "float16", "None"). A new prim::Constant is made so
// other consumers of the old constant keep their value.
struct EditConstant {
  NodeId consumer = model::kNoNode;
  QString argument;
  QString value;
};

using Edit = std::variant<DeleteNode, BypassNode, InsertOp, ReplaceOp, RewireInput, EditConstant>;

struct EditResult {
  model::RevisionPtr revision;  // null when refused
  NodeId node = model::kNoNode; // the node the refusal is about
  QString error;                // why, worded for the user
  bool ok() const { return revision != nullptr; }
  model::Diagnostics diagnostics() const;  // the refusal as an "edit" error about `node`
};

// Applies `edit` to `base`; the result's revision is named by describe(edit, base).
EditResult apply(const Edit& edit, const model::Revision& base, model::NodeIdSource& ids);

// A short description by node id, for messages about the edit itself: "Replace node 41 by aten::gelu".
QString describe(const Edit& edit);
// The revision's name, by module path and op in `base`: "Replace layer1.0.relu (aten::relu) by aten::gelu".
QString describe(const Edit& edit, const model::Revision& base);

// The id-stable JSON form: {"kind": "replace_op", "node": 41, "op": "aten::gelu"}.
QJsonObject toJson(const Edit& edit);
// Parses toJson's form; on bad input returns nullopt and sets `error`.
std::optional<Edit> fromJson(const QJsonObject& json, QString* error = nullptr);

}  // namespace graft::core::edit
