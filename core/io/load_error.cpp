#include "core/io/load_error.h"

namespace graft::core::io {

QString LoadError::message() const {
  return hint.isEmpty() ? headline : headline + QLatin1Char('\n') + hint;
}

model::Diagnostics LoadError::diagnostics(const QString& file) const {
  if (!isError()) return {};
  auto d = model::Diagnostic::error(QStringLiteral("load"), headline, hint);
  d.file = file;
  d.details = details;
  return {d};
}

QString kindName(LoadErrorKind kind) {
  switch (kind) {
    case LoadErrorKind::None: return QStringLiteral("none");
    case LoadErrorKind::FileMissing: return QStringLiteral("file_missing");
    case LoadErrorKind::FileUnreadable: return QStringLiteral("file_unreadable");
    case LoadErrorKind::NotAnArchive: return QStringLiteral("not_an_archive");
    case LoadErrorKind::TruncatedArchive: return QStringLiteral("truncated_archive");
    case LoadErrorKind::StateDict: return QStringLiteral("state_dict");
    case LoadErrorKind::PickledModule: return QStringLiteral("pickled_module");
    case LoadErrorKind::PickledObject: return QStringLiteral("pickled_object");
    case LoadErrorKind::Onnx: return QStringLiteral("onnx");
    case LoadErrorKind::UnknownOperator: return QStringLiteral("unknown_operator");
    case LoadErrorKind::NoForward: return QStringLiteral("no_forward");
    case LoadErrorKind::UnknownSample: return QStringLiteral("unknown_sample");
    case LoadErrorKind::CodeTooDeep: return QStringLiteral("code_too_deep");
    case LoadErrorKind::RunsCodeOnLoad: return QStringLiteral("runs_code_on_load");
    case LoadErrorKind::Other: return QStringLiteral("other");
  }
  return QStringLiteral("other");
}

}  // namespace graft::core::io
