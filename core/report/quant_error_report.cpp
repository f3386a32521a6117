#include "core/report/quant_error_report.h"

#include <QtCore/QJsonArray>
#include <cmath>

namespace graft::core::report {

namespace {

QJsonValue number(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null); }

QJsonObject rowJson(const run::ModuleError& m) {
  QJsonObject o{{"module_path", m.modulePath}, {"sqnr_db", number(m.diff.sqnrDb)}, {"cosine", number(m.diff.cosine)},
                {"max_abs", number(m.diff.maxAbs)}, {"numel", double(m.diff.numel)}, {"op", m.op},
                {"node", double(m.node)}, {"float_op", m.floatOp}, {"float_node", double(m.floatNode)}};
  if (!m.diff.note.isEmpty()) o["note"] = m.diff.note;
  return o;
}

QString decibels(double v) {
  if (std::isinf(v) && v > 0) return QStringLiteral("inf");
  return std::isfinite(v) ? QString::number(v, 'f', 2) : QStringLiteral("-");
}

}  // namespace

QJsonObject quantErrorReport(const run::ModuleErrorResult& result) {
  QJsonArray modules;
  for (const auto& m : result.modules) modules.append(rowJson(m));
  const auto* worst = result.worst();
  return {{"modules", modules},
          {"only_in_quantized", QJsonArray::fromStringList(result.onlyInQuantized)},
          {"only_in_float", QJsonArray::fromStringList(result.onlyInFloat)},
          {"worst", worst ? QJsonValue(rowJson(*worst)) : QJsonValue(QJsonValue::Null)}};
}

QString quantErrorText(const run::ModuleErrorResult& result) {
  QStringList lines;
  if (const auto* w = result.worst())
    lines << QStringLiteral("worst: %1 (%2), SQNR %3 dB, cosine %4")
                 .arg(w->modulePath, w->op, decibels(w->diff.sqnrDb)).arg(w->diff.cosine, 0, 'f', 5);
  lines << QStringLiteral("%1  %2  %3  %4  %5").arg(QStringLiteral("SQNR dB"), 9).arg(QStringLiteral("cosine"), 8)
               .arg(QStringLiteral("max_abs"), 10).arg(QStringLiteral("numel"), 9).arg(QStringLiteral("module (op)"));
  for (const auto& m : result.modules) {
    QString line = QStringLiteral("%1  %2  %3  %4  %5 (%6)").arg(decibels(m.diff.sqnrDb), 9)
                       .arg(m.diff.cosine, 8, 'f', 5).arg(m.diff.maxAbs, 10, 'g', 4).arg(m.diff.numel, 9)
                       .arg(m.modulePath, m.op);
    if (!m.diff.note.isEmpty()) line += QStringLiteral(": ") + m.diff.note;
    lines << line;
  }
  if (!result.onlyInQuantized.isEmpty())
    lines << QStringLiteral("only in the quantized model: ") + result.onlyInQuantized.join(QStringLiteral(", "));
  if (!result.onlyInFloat.isEmpty())
    lines << QStringLiteral("only in the float model: ") + result.onlyInFloat.join(QStringLiteral(", "));
  return lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::report
