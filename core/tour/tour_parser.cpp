#include "core/tour/tour_parser.h"
#include "core/io/file_policy.h"

#include "core/tour/json_positions.h"

#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRegularExpression>

namespace graft::core::tour {

namespace {

// Checks a parsed document against the format; the first problem wins.
class Reader {
 public:
  Reader(const QByteArray& utf8, const QString& file) : positions_(utf8), file_(file) {}

  bool fail(const QString& path, const QString& message, bool atKey = false) {
    if (error_.isError()) return false;
    const Position p = atKey ? positions_.keyAt(path) : positions_.at(path);
    error_ = TourError{file_, p.line, p.column, message};
    return false;
  }
  const TourError& error() const { return error_; }
  Position at(const QString& path) const { return positions_.at(path); }

  // Every key of `o` (at `path`) must be in `allowed`.
  bool onlyKeys(const QJsonObject& o, const QString& path, const QStringList& allowed, const QString& what) {
    for (auto it = o.begin(); it != o.end(); ++it)
      if (!allowed.contains(it.key()))
        return fail(path + QLatin1Char('/') + it.key(),
                    QStringLiteral("unknown key \"%1\" in %2 (expected one of: %3)")
                        .arg(it.key(), what, allowed.join(QStringLiteral(", "))),
                    true);
    return true;
  }
  bool string(const QJsonObject& o, const QString& path, const QString& key, QString& out, bool required) {
    const QJsonValue v = o.value(key);
    if (v.isUndefined()) return !required || fail(path, QStringLiteral("missing \"%1\"").arg(key));
    if (!v.isString() || v.toString().trimmed().isEmpty())
      return fail(path + QLatin1Char('/') + key, QStringLiteral("\"%1\" must be a non-empty string").arg(key));
    out = v.toString();
    return true;
  }
  // A string, or an array of strings joined with newlines (long rich text reads better that way).
  bool text(const QJsonObject& o, const QString& path, const QString& key, QString& out) {
    const QJsonValue v = o.value(key);
    if (v.isArray()) {
      QStringList lines;
      const QJsonArray a = v.toArray();
      for (int i = 0; i < a.size(); ++i) {
        if (!a[i].isString())
          return fail(QStringLiteral("%1/%2/%3").arg(path, key).arg(i),
                      QStringLiteral("\"%1\" lines must be strings").arg(key));
        lines << a[i].toString();
      }
      out = lines.join(QLatin1Char('\n'));
      return true;
    }
    return string(o, path, key, out, true);
  }
  bool nodeRef(const QJsonValue& v, const QString& path, NodeRef& ref) {
    if (!v.isObject())
      return fail(path, QStringLiteral("a node is an object: {\"op\": \"aten::linear\", \"module\": \"fc1\"}"));
    const QJsonObject o = v.toObject();
    if (!onlyKeys(o, path, {QStringLiteral("op"), QStringLiteral("module"), QStringLiteral("occurrence")},
                  QStringLiteral("a node")))
      return false;
    if (!string(o, path, QStringLiteral("op"), ref.op, true)) return false;
    ref.module = o.value(QStringLiteral("module")).toString();
    ref.occurrence = o.value(QStringLiteral("occurrence")).toInt(0);
    return true;
  }
  bool highlight(const QJsonValue& v, const QString& path, Highlight& h) {
    if (!v.isObject())
      return fail(path, QStringLiteral("\"highlight\" must be an object with \"docks\" and/or \"nodes\""));
    const QJsonObject o = v.toObject();
    if (!onlyKeys(o, path, {QStringLiteral("docks"), QStringLiteral("nodes")}, QStringLiteral("a highlight")))
      return false;
    const QJsonArray docks = o.value(QStringLiteral("docks")).toArray();
    for (int i = 0; i < docks.size(); ++i) {
      const QString name = docks[i].toString();
      if (!dockNames().contains(name))
        return fail(QStringLiteral("%1/docks/%2").arg(path).arg(i),
                    QStringLiteral("unknown dock \"%1\" (expected one of: %2)")
                        .arg(name, dockNames().join(QStringLiteral(", "))));
      h.docks << name;
    }
    const QJsonArray nodes = o.value(QStringLiteral("nodes")).toArray();
    for (int i = 0; i < nodes.size(); ++i) {
      NodeRef ref;
      if (!nodeRef(nodes[i], QStringLiteral("%1/nodes/%2").arg(path).arg(i), ref)) return false;
      h.nodes << ref;
    }
    return true;
  }
  bool action(const QJsonValue& v, const QString& path, Action& a) {
    if (!v.isObject())
      return fail(path, QStringLiteral("an action is an object: {\"do\": \"open_sample\", \"sample\": \"mlp\"}"));
    QJsonObject o = v.toObject();
    a.at = at(path);
    if (!string(o, path, QStringLiteral("do"), a.kind, true)) return false;
    if (!actionKinds().contains(a.kind))
      return fail(path + QStringLiteral("/do"), QStringLiteral("unknown action \"%1\" (expected one of: %2)")
                                                    .arg(a.kind, actionKinds().join(QStringLiteral(", "))));
    o.remove(QStringLiteral("do"));
    for (const QString& key : requiredArgs(a.kind))
      if (!o.value(key).isString() || o.value(key).toString().isEmpty())
        return fail(path, QStringLiteral("action \"%1\" needs \"%2\" (a string)").arg(a.kind, key));
    if (a.kind == QLatin1String("show_dock") && !dockNames().contains(o.value(QStringLiteral("dock")).toString()))
      return fail(path + QStringLiteral("/dock"),
                  QStringLiteral("unknown dock \"%1\" (expected one of: %2)")
                      .arg(o.value(QStringLiteral("dock")).toString(), dockNames().join(QStringLiteral(", "))));
    a.args = o;
    return true;
  }
  bool condition(const QJsonValue& v, const QString& path, Condition& c) {
    if (!v.isObject()) return fail(path, QStringLiteral("\"done\" must be an object of conditions"));
    const QJsonObject o = v.toObject();
    if (!onlyKeys(o, path, conditionKeys(), QStringLiteral("a done condition"))) return false;
    for (auto it = o.begin(); it != o.end(); ++it) {
      const QString key = it.key(), where = path + QLatin1Char('/') + key;
      const QJsonValue value = it.value();
      if (key == QLatin1String("ops") || key == QLatin1String("revisions_at_least")) {
        if (!value.isDouble() || value.toDouble() != double(value.toInt()))
          return fail(where, QStringLiteral("\"%1\" must be a whole number").arg(key));
      } else if (key == QLatin1String("op_count")) {
        if (!value.isObject())
          return fail(where, QStringLiteral("\"op_count\" maps op kinds to counts: {\"aten::linear\": 2}"));
        const QJsonObject counts = value.toObject();
        for (auto c = counts.begin(); c != counts.end(); ++c)
          if (!c.value().isDouble())
            return fail(where + QLatin1Char('/') + c.key(), QStringLiteral("op counts must be numbers"));
      } else if (key == QLatin1String("has_op") || key == QLatin1String("lacks_op")) {
        if (!value.isString() && !value.isArray())
          return fail(where, QStringLiteral("\"%1\" is an op kind or a list of them").arg(key));
      } else if (key == QLatin1String("compare")) {
        if (value.toString() != QLatin1String("equal") && value.toString() != QLatin1String("differs"))
          return fail(where, QStringLiteral("\"compare\" is \"equal\" or \"differs\""));
      } else if (key == QLatin1String("profiled") || key == QLatin1String("saved_loads") ||
                 key == QLatin1String("first_divergence_selected")) {
        if (!value.isBool()) return fail(where, QStringLiteral("\"%1\" must be true or false").arg(key));
      } else if (key == QLatin1String("dock_visible")) {
        if (!dockNames().contains(value.toString()))
          return fail(where, QStringLiteral("unknown dock \"%1\" (expected one of: %2)")
                                 .arg(value.toString(), dockNames().join(QStringLiteral(", "))));
      } else if (!value.isString()) {
        return fail(where, QStringLiteral("\"%1\" must be a string").arg(key));
      }
    }
    c.keys = o;
    c.at = at(path);
    return true;
  }
  bool step(const QJsonValue& v, const QString& path, Step& s) {
    if (!v.isObject()) return fail(path, QStringLiteral("a step is an object with \"title\", \"text\" and \"done\""));
    const QJsonObject o = v.toObject();
    s.at = at(path);
    if (!onlyKeys(o, path,
                  {QStringLiteral("title"), QStringLiteral("text"), QStringLiteral("highlight"),
                   QStringLiteral("actions"), QStringLiteral("done")},
                  QStringLiteral("a step")))
      return false;
    if (!string(o, path, QStringLiteral("title"), s.title, true) || !text(o, path, QStringLiteral("text"), s.text))
      return false;
    if (o.contains(QStringLiteral("highlight")) &&
        !highlight(o.value(QStringLiteral("highlight")), path + QStringLiteral("/highlight"), s.highlight))
      return false;
    if (o.contains(QStringLiteral("actions"))) {
      if (!o.value(QStringLiteral("actions")).isArray())
        return fail(path + QStringLiteral("/actions"), QStringLiteral("\"actions\" must be a list"));
      const QJsonArray actions = o.value(QStringLiteral("actions")).toArray();
      for (int i = 0; i < actions.size(); ++i) {
        Action a;
        if (!action(actions[i], QStringLiteral("%1/actions/%2").arg(path).arg(i), a)) return false;
        s.actions << a;
      }
    }
    if (!o.contains(QStringLiteral("done")))
      return fail(path, QStringLiteral("step \"%1\" has no \"done\" condition").arg(s.title));
    return condition(o.value(QStringLiteral("done")), path + QStringLiteral("/done"), s.done);
  }
  bool tour(const QJsonDocument& doc, Tour& t) {
    if (!doc.isObject()) return fail(QString(), QStringLiteral("a tour file holds one JSON object"));
    const QJsonObject o = doc.object();
    if (!onlyKeys(o, QString(),
                  {QStringLiteral("format"), QStringLiteral("id"), QStringLiteral("title"),
                   QStringLiteral("description"), QStringLiteral("steps")},
                  QStringLiteral("the tour")))
      return false;
    if (o.value(QStringLiteral("format")).toString() != QLatin1String("graft-tour"))
      return fail(QStringLiteral("format"), QStringLiteral("\"format\" must be \"graft-tour\""));
    if (!string(o, QString(), QStringLiteral("id"), t.id, true) ||
        !string(o, QString(), QStringLiteral("title"), t.title, true))
      return false;
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
    if (!idPattern.match(t.id).hasMatch())
      return fail(QStringLiteral("id"), QStringLiteral("\"id\" may hold only a-z, 0-9 and '-'"));
    t.description = o.value(QStringLiteral("description")).toString();
    const QJsonArray steps = o.value(QStringLiteral("steps")).toArray();
    if (steps.isEmpty())
      return fail(QStringLiteral("steps"), QStringLiteral("a tour needs a non-empty \"steps\" list"));
    for (int i = 0; i < steps.size(); ++i) {
      Step s;
      if (!step(steps[i], QStringLiteral("steps/%1").arg(i), s)) return false;
      t.steps << s;
    }
    return true;
  }

 private:
  JsonPositions positions_;
  QString file_;
  TourError error_;
};

}  // namespace

TourParseResult parseTour(const QByteArray& utf8, const QString& file) {
  TourParseResult result;
  QJsonParseError jsonError;
  const QJsonDocument doc = QJsonDocument::fromJson(utf8, &jsonError);
  if (jsonError.error != QJsonParseError::NoError) {
    const Position p = JsonPositions(utf8).positionOf(jsonError.offset);
    result.error =
        TourError{file, p.line, p.column, QStringLiteral("JSON syntax error: %1").arg(jsonError.errorString())};
    return result;
  }
  Reader reader(utf8, file);
  if (!reader.tour(doc, result.tour)) {
    result.error = reader.error();
    result.tour = {};
    return result;
  }
  result.tour.source = file;
  return result;
}

TourParseResult parseTourFile(const QString& path) {
  // The input policy (io/file_policy.h): a regular file of bounded size, never a FIFO or a device.
  if (path.startsWith(QLatin1String(":/"))) {  // a built-in tour (Qt resource)
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) return parseTour(f.readAll(), path);
  }
  QString why;
  const auto bytes = io::readInputFile(path, io::kMaxTextFileBytes, QStringLiteral("tour file"), &why);
  if (!bytes) {
    TourParseResult r;
    r.error = TourError{path, 0, 0, QStringLiteral("cannot read tour file: %1").arg(why)};
    return r;
  }
  return parseTour(*bytes, path);
}

}  // namespace graft::core::tour
