#include "core/model/diagnostic.h"

#include <utility>

namespace graft::core::model {

namespace {

Diagnostic make(Severity severity, QString job, QString message, QString hint, NodeId node) {
  Diagnostic d;
  d.severity = severity;
  d.job = std::move(job);
  d.message = std::move(message);
  d.hint = std::move(hint);
  d.node = node;
  return d;
}

}  // namespace

Diagnostic Diagnostic::error(QString job, QString message, QString hint, NodeId node) {
  return make(Severity::Error, std::move(job), std::move(message), std::move(hint), node);
}
Diagnostic Diagnostic::warning(QString job, QString message, QString hint, NodeId node) {
  return make(Severity::Warning, std::move(job), std::move(message), std::move(hint), node);
}
Diagnostic Diagnostic::info(QString job, QString message, QString hint, NodeId node) {
  return make(Severity::Info, std::move(job), std::move(message), std::move(hint), node);
}

QString Diagnostic::location() const {
  if (file.isEmpty()) return {};
  QString where = file;
  if (line > 0) where += QStringLiteral(":%1").arg(line);
  if (line > 0 && column > 0) where += QStringLiteral(":%1").arg(column);
  return where;
}

QString Diagnostic::toLine() const {
  QString text = severityName(severity) + QStringLiteral(": ");
  // A model file is the subject of the whole command; a rule or session file at a line is news.
  if (line > 0) text += location() + QStringLiteral(": ");
  text += QString(message).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified();
  if (!hint.isEmpty())
    text += QStringLiteral(" (%1)").arg(QString(hint).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified());
  return text;
}

QJsonObject Diagnostic::toJson() const {
  QJsonObject o{{QStringLiteral("severity"), severityName(severity)},
                {QStringLiteral("message"), message},
                {QStringLiteral("hint"), hint},
                {QStringLiteral("node"), node == kNoNode ? QJsonValue() : QJsonValue(qint64(node))},
                {QStringLiteral("file"), file},
                {QStringLiteral("line"), line},
                {QStringLiteral("job"), job}};
  if (column > 0) o.insert(QStringLiteral("column"), column);
  if (!details.isEmpty()) o.insert(QStringLiteral("details"), details);
  return o;
}

Diagnostic Diagnostic::fromJson(const QJsonObject& json) {
  Diagnostic d;
  d.severity = severityFromName(json.value(QStringLiteral("severity")).toString());
  d.message = json.value(QStringLiteral("message")).toString();
  d.hint = json.value(QStringLiteral("hint")).toString();
  d.node = NodeId(json.value(QStringLiteral("node")).toInteger(0));
  d.file = json.value(QStringLiteral("file")).toString();
  d.line = json.value(QStringLiteral("line")).toInt();
  d.column = json.value(QStringLiteral("column")).toInt();
  d.job = json.value(QStringLiteral("job")).toString();
  d.details = json.value(QStringLiteral("details")).toString();
  return d;
}

QString severityName(Severity severity) {
  switch (severity) {
    case Severity::Error: return QStringLiteral("error");
    case Severity::Warning: return QStringLiteral("warning");
    case Severity::Info: return QStringLiteral("info");
  }
  return QStringLiteral("error");
}

Severity severityFromName(const QString& name) {
  if (name == QLatin1String("warning")) return Severity::Warning;
  if (name == QLatin1String("info")) return Severity::Info;
  return Severity::Error;
}

QJsonArray toJson(const Diagnostics& diagnostics) {
  QJsonArray array;
  for (const auto& d : diagnostics) array.append(d.toJson());
  return array;
}

Diagnostics diagnosticsFromJson(const QJsonArray& array) {
  Diagnostics out;
  for (const auto& v : array) out.push_back(Diagnostic::fromJson(v.toObject()));
  return out;
}

bool hasErrors(const Diagnostics& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

}  // namespace graft::core::model
