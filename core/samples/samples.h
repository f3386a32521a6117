#pragma once
// Built-in sample models, defined in C++ with Module::define so no Python is needed.
#include <QtCore/QStringList>
#include <optional>

namespace torch::jit { struct Module; }

namespace graft::core::samples {

struct SampleInfo {
  QString name;
  QString title;
  QString description;
  // The input shape forward expects, e.g. {1, 3, 32, 32}.
  std::vector<int64_t> inputShape;
};

const std::vector<SampleInfo>& all();
const SampleInfo* find(const QString& name);
QStringList names();
// The sample's input as an input spec: "1x3x32x32:float32".
QString inputSpec(const SampleInfo& sample);

// A fresh, unfrozen module for sample `name` in eval mode; nullopt for an unknown name.
std::optional<torch::jit::Module> build(const QString& name);

}  // namespace graft::core::samples
