#pragma once
// Opening models: TorchScript archives from disk and the built-in samples.
#include "core/io/load_error.h"
#include "core/model/document.h"

#include <memory>

namespace graft::core::io {

struct LoadOptions {
  bool freeze = true;  // freeze_module (parameters become constants); false keeps attributes
  // The user trusts the file (`--trust`): its __setstate__ may run while it loads, and its runs
  // may call ops that reach outside the process (model/effect_ops.h). Never the default.
  bool trust = false;
};

struct LoadResult {
  std::unique_ptr<model::Document> document;
  LoadError error;
  bool ok() const { return document != nullptr; }
};

// Loads `path`, puts it in eval mode, freezes (unless told not to) and inlines it.
// Never throws: every failure comes back as a classified LoadError.
LoadResult loadFile(const QString& path, const LoadOptions& options = {});

// Builds one of the built-in samples (see samples::names()) and prepares it like a file.
LoadResult loadSample(const QString& name, const LoadOptions& options = {});

}  // namespace graft::core::io
