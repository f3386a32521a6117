#pragma once
// Errors as data: the one shape every job (load, edit, rewrite, compare, profile, save, layout)
// reports problems in. The CLI prints them one per line and as JSON `diagnostics[]`; the GUI lists
// them in the Issues dock. Plain Qt Core, no libtorch, so ui/ headers may use it.
#include "core/model/ids.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>
#include <QtCore/QMetaType>
#include <QtCore/QString>

#include <vector>

namespace graft::core::model {

enum class Severity { Error, Warning, Info };

struct Diagnostic {
  Severity severity = Severity::Error;
  QString message;  // one line: what is wrong
  QString hint;     // what to do about it (may be empty)
  NodeId node = kNoNode;
  QString file;     // a model, rule or session file, when the problem is in one
  int line = 0;     // 1-based, 0 when unknown
  int column = 0;   // 1-based, 0 when unknown
  QString job;      // "load", "edit", "rewrite", "compare", "profile", "save", "layout", "run"
  QString details;  // the library's own words (libtorch without backtrace), for a tooltip

  static Diagnostic error(QString job, QString message, QString hint = {}, NodeId node = kNoNode);
  static Diagnostic warning(QString job, QString message, QString hint = {}, NodeId node = kNoNode);
  static Diagnostic info(QString job, QString message, QString hint = {}, NodeId node = kNoNode);

  // "file:line:column" (what is known of it), empty when there is no file.
  QString location() const;
  // "error: file:line:column: message (hint)": the CLI's line on stderr.
  QString toLine() const;
  QJsonObject toJson() const;
  static Diagnostic fromJson(const QJsonObject& json);
  bool operator==(const Diagnostic&) const = default;
};

using Diagnostics = std::vector<Diagnostic>;

// "error", "warning", "info" and back (unknown text reads as error).
QString severityName(Severity severity);
Severity severityFromName(const QString& name);

QJsonArray toJson(const Diagnostics& diagnostics);
Diagnostics diagnosticsFromJson(const QJsonArray& array);
// True when any diagnostic is an error.
bool hasErrors(const Diagnostics& diagnostics);

}  // namespace graft::core::model

Q_DECLARE_METATYPE(graft::core::model::Diagnostic)
