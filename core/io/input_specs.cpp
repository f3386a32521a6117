#include "core/io/input_specs.h"

#include "core/model/document.h"
#include "core/model/job_guard.h"
#include "core/model/revision.h"
#include "core/model/symbol_ranges.h"
#include "core/model/value_format.h"
#include "core/io/input_set.h"

#include <torch/script.h>

namespace graft::core::io {

QStringList splitInputSpecs(const QString& text) {
  QStringList specs;
  QString current;
  int depth = 0;
  bool quoted = false;
  for (const QChar c : text) {
    if (c == '"') {  // "my inputs/x.pt": a path with blanks
      quoted = !quoted;
      continue;
    }
    if (quoted) {
      current += c;
      continue;
    }
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') depth = std::max(0, depth - 1);
    if (depth == 0 && (c == ';' || c.isSpace())) {
      if (!current.isEmpty()) specs << current;
      current.clear();
      continue;
    }
    if (!c.isSpace()) current += c;  // "(2x2, 3x3)" keeps no inner blanks
  }
  if (!current.isEmpty()) specs << current;
  return specs;
}

QString checkInputSpec(const QString& spec) {
  return model::guarded([&] { return parseInputs({spec}, 0).error; }, [](const QString& why) { return why; });
}

InputResult resolveInputs(const model::Document& doc, const QString& text, quint64 seed) {
  return model::guarded([&] { return inputsFor(doc, splitInputSpecs(text), seed); },
                        [](const QString& why) {
                          InputResult r;
                          r.error = QStringLiteral("the inputs could not be made: %1").arg(why);
                          return r;
                        });
}

QVector<ArgumentInfo> forwardArguments(const model::Revision& revision) {
  QVector<ArgumentInfo> out;
  const auto inputs = revision.graph()->inputs();
  for (size_t i = 1; i < inputs.size(); ++i) {  // input 0 is self
    const auto* value = inputs[i];
    ArgumentInfo a;
    a.name = QString::fromStdString(value->debugName()).section(QLatin1Char('.'), 0, 0);
    a.type = QString::fromStdString(value->type()->annotation_str());
    if (auto t = value->type()->cast<c10::TensorType>()) {
      auto sizes = t->sizes().concrete_sizes();
      auto dtype = t->scalarType();
      if (sizes && dtype) {
        QStringList dims;
        for (auto d : *sizes) dims << QString::number(d);
        a.defaultSpec = dims.join('x') + QLatin1Char(':') + model::dtypeName(static_cast<int>(*dtype));
      }
    }
    out.push_back(a);
  }
  return out;
}

QString inputFieldHelp(const model::Document* doc) {
  QString help = QStringLiteral(
      "One spec per input, separated by ';' or spaces: a shape with seeded random values (1x3x224x224:float32), "
      "a tensor file (.pt, .npy), a number (3, 0.5), true/false, none, (…) tuples, […] lists. NAME=SPEC sets one "
      "input by name; the others keep the model's sample inputs. Blank: the model's own inputs.");
  if (!doc) return help;
  const auto graph = doc->current()->graph();
  const QStringList names = inputNames(*doc);
  QStringList lines, types;
  for (size_t i = 1; i < graph->inputs().size(); ++i) {
    if (graph->inputs()[i]->type()->cast<c10::ClassType>()) continue;
    const QString type = model::formatType(graph->inputs()[i]);
    types << type;
    lines << QStringLiteral("%1: %2").arg(
        names.value(int(i) - 1, QString::fromStdString(graph->inputs()[i]->debugName())), type);
  }
  if (const QString ranges = model::symbolRangesIn(types.join(QLatin1Char(' ')), doc->current()->symbolRanges());
      !ranges.isEmpty())
    lines << ranges;
  return help + QStringLiteral("\n\n") + doc->displayName() + QStringLiteral(" takes:\n") +
         lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::io
