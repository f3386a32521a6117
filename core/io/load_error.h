#pragma once
// Why a model could not be opened, worded for the person who tried.
#include "core/model/diagnostic.h"

#include <QtCore/QString>

namespace graft::core::io {

enum class LoadErrorKind {
  None,
  FileMissing,
  FileUnreadable,
  NotAnArchive,      // neither a zip nor anything else we recognise
  TruncatedArchive,  // a zip whose directory is damaged or missing
  StateDict,         // torch.save(model.state_dict())
  PickledModule,     // torch.save(model)
  PickledObject,     // another torch.save'd object
  Onnx,
  UnknownOperator,
  NoForward,
  UnknownSample,
  CodeTooDeep,      // code nested deeper than libtorch's compiler can take (io/code_scan.h)
  RunsCodeOnLoad,   // a __setstate__ that loops or reaches outside, and the file is not trusted
  Other,
};

struct LoadError {
  LoadErrorKind kind = LoadErrorKind::None;
  QString headline;  // one line: what is wrong
  QString hint;      // what to do about it
  QString details;   // libtorch's own words, without backtrace

  bool isError() const { return kind != LoadErrorKind::None; }
  // "headline\nhint" for a terminal or a message box.
  QString message() const;
  // The error as a "load" diagnostic about `file` (none when there is no error).
  model::Diagnostics diagnostics(const QString& file = {}) const;
};

// A stable identifier for the kind ("state_dict", "onnx", ...), used in JSON output.
QString kindName(LoadErrorKind kind);

}  // namespace graft::core::io
