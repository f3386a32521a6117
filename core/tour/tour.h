#pragma once
// A guided tour as its file describes it (docs/tours.md): plain data, no libtorch and no widgets.
// Steps say what to read, what Graft highlights, what "Do it for me" does, and when the step is
// done.
#include <QtCore/QJsonObject>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVector>

namespace graft::core::tour {

// Where something was written in the tour file (1-based), for messages.
struct Position {
  int line = 0, column = 0;
};

// One thing "Do it for me" does: `kind` is one of actionKinds(), `args` its other keys.
struct Action {
  QString kind;
  QJsonObject args;
  Position at;
  QString text(const QString& key) const { return args.value(key).toString(); }
};

// A node named the way a reader would: its op kind, and optionally its module path and which
// occurrence (0-based) among nodes matching both.
struct NodeRef {
  QString op, module;
  int occurrence = 0;
};

// What the step points at while it is shown.
struct Highlight {
  QStringList docks;         // dock names (see dockNames())
  QVector<NodeRef> nodes;    // canvas boxes outlined
};

// The step is done when every key given holds (see docs/tours.md for each key's meaning).
struct Condition {
  QJsonObject keys;
  Position at;
  bool isEmpty() const { return keys.isEmpty(); }
};

struct Step {
  QString title;
  QString text;  // rich text (a Qt HTML subset), may hold <pre>/<code>
  Highlight highlight;
  QVector<Action> actions;
  Condition done;
  Position at;
};

struct Tour {
  QString id, title, description;
  QString source;  // "builtin" or the file's path
  QVector<Step> steps;
};

// Action kinds and their required argument keys.
const QStringList& actionKinds();
QStringList requiredArgs(const QString& kind);
// Condition keys a tour may use.
const QStringList& conditionKeys();
// Dock names a tour may highlight or show.
const QStringList& dockNames();

}  // namespace graft::core::tour
