#include "core/profile/profile_job.h"

#include "core/model/document.h"
#include "core/samples/samples.h"

#include <torch/script.h>

#include <stdexcept>

namespace graft::core::profile {

QString defaultInputSpec(const model::Document& document) {
  const auto* sample = samples::find(document.sampleName());
  if (!sample) return {};
  QStringList dims;
  for (auto d : sample->inputShape) dims << QString::number(d);
  return dims.join(QLatin1Char('x')) + QStringLiteral(":float32");
}

namespace {

c10::ScalarType dtypeOf(const QString& name) {
  if (name.isEmpty() || name == QLatin1String("float32") || name == QLatin1String("float")) return c10::kFloat;
  if (name == QLatin1String("float64") || name == QLatin1String("double")) return c10::kDouble;
  if (name == QLatin1String("float16") || name == QLatin1String("half")) return c10::kHalf;
  if (name == QLatin1String("int64") || name == QLatin1String("long")) return c10::kLong;
  if (name == QLatin1String("int32") || name == QLatin1String("int")) return c10::kInt;
  throw std::runtime_error(QStringLiteral("unknown dtype \"%1\" (use float32, float64, float16, int64 or int32)")
                               .arg(name).toStdString());
}

}  // namespace

Profile profileWithSpec(const model::Revision& revision, const QString& spec, quint64 seed,
                        const ProfileOptions& options) {
  if (spec.trimmed().isEmpty()) throw std::runtime_error("no input shape given: enter one such as 1x3x224x224");
  at::manual_seed(seed);
  std::vector<c10::IValue> inputs;
  for (const QString& part : spec.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const QString shape = part.section(QLatin1Char(':'), 0, 0).trimmed();
    std::vector<int64_t> dims;
    for (const QString& d : shape.split(QLatin1Char('x'))) {
      bool ok = false;
      const qlonglong v = d.toLongLong(&ok);
      if (!ok || v <= 0)
        throw std::runtime_error(QStringLiteral("\"%1\" is not a shape: write sizes separated by x, e.g. 1x3x224x224")
                                     .arg(part.trimmed()).toStdString());
      dims.push_back(v);
    }
    const auto dtype = dtypeOf(part.section(QLatin1Char(':'), 1).trimmed());
    inputs.emplace_back(c10::isFloatingType(dtype) ? torch::randn(dims).to(dtype) : torch::randint(0, 10, dims).to(dtype));
  }
  return profileRevision(revision, inputs, options);
}

}  // namespace graft::core::profile
