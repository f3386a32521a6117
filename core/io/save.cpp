#include "core/io/save.h"
#include "core/model/saved_record.h"

#include "core/io/pt2_export.h"
#include "core/model/document.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"

#include <QtCore/QFileInfo>

#include "core/io/atomic_write.h"
#include "core/model/revision.h"

#include <torch/script.h>

#include <sstream>

namespace graft::core::io {

model::Diagnostics SaveResult::diagnostics(const QString& file) const {
  if (ok && warning.isEmpty()) return {};
  if (ok) {
    auto w = model::Diagnostic::warning(
        QStringLiteral("save"), warning,
        QStringLiteral("give the model's inputs (--input, or the Compare dock's Inputs) and save again to check it"));
    w.file = file;
    return {w};
  }
  auto d = model::Diagnostic::error(QStringLiteral("save"), error,
                                    QStringLiteral("nothing was written; an existing file is unchanged"));
  d.file = file;
  return {d};
}

SaveResult saveRevision(const model::Revision& revision, const QString& path, const model::SavedRecord* record) {
  // Streamed to the save file: a 1.2 GB model is not held in memory once more while it is written.
  QString serialisationError;
  const QString why = streamAtomically(path, [&](std::ostream& out) {
    try {
      torch::jit::ExtraFilesMap extra;
      if (record) extra[kProvenanceExtraFile] = record->toJson().toStdString();
      revision.runnable().save(out, extra);
    } catch (const c10::Error& e) {
      serialisationError = QString::fromStdString(e.what_without_backtrace()).section(QLatin1Char('\n'), 0, 0);
    } catch (const std::exception& e) {
      serialisationError = QString::fromUtf8(e.what());
    }
    if (!serialisationError.isEmpty()) out.setstate(std::ios::failbit);
  });
  if (!serialisationError.isEmpty())
    return {false, QStringLiteral("The revision could not be serialised: %1").arg(serialisationError)};
  if (!why.isEmpty()) return {false, QStringLiteral("Cannot write %1: %2").arg(path, why)};
  return {true, {}};
}

namespace {
// A changed revision is run once on the model's inputs before it is written as TorchScript, as a
// .pt2 save runs it to check every size: a rule that changed a shape (a conv given a weight of
// another channel count) would otherwise be saved, and fail only when someone runs the file.
// Where neither the caller nor the model gives inputs there is nothing to run it on: it is saved,
// and `unchecked` says so.
QString checkRuns(const model::Document& document, const model::RevisionPtr& revision, const model::InputSet* given,
                  QString* unchecked) {
  if (revision == document.original()) return {};
  // The model's own inputs are made only when the caller gave none.
  io::InputResult inputs;
  if (given) inputs.inputs = *given;
  else inputs = io::defaultInputs(document, 0);
  if (!inputs.inputs) {
    *unchecked = QStringLiteral("the revision “%1” was saved without a run to check it: the model records no inputs")
                     .arg(revision->name());
    return {};
  }
  QString why;
  try {
    run::Executor executor(revision);
    const auto result = executor.run(*inputs.inputs, run::RunOptions{});
    if (!result.ok) why = result.error.headline();
  } catch (const std::exception& e) {
    why = QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0);
  }
  if (why.isEmpty()) return {};
  return QStringLiteral("the revision “%1” does not run on the model's inputs (%2), so it is not saved (a change may "
                        "have altered a shape): %3")
      .arg(revision->name(), inputs.inputs->descriptions.join(QStringLiteral(", ")), why);
}
}  // namespace

SaveResult saveAs(const model::Document& document, const std::shared_ptr<const model::Revision>& revision,
                  const QString& path, const model::InputSet* checkInputs) {
  // The output policy: never the file the document was opened from, never a device.
  if (const QString why = checkOutputPath(path, {document.sourcePath()}); !why.isEmpty()) return {false, why};
  const model::SavedRecord record = model::recordFor(document, *revision);
  if (!path.endsWith(QLatin1String(".pt2"), Qt::CaseInsensitive)) {
    QString unchecked;
    if (const QString why = checkRuns(document, revision, checkInputs, &unchecked); !why.isEmpty()) return {false, why};
    SaveResult saved = saveRevision(*revision, path, &record);
    if (saved.ok) saved.warning = unchecked;
    return saved;
  }
  if (document.format() != QLatin1String("pt2"))
    return {false,
            QStringLiteral("%1: only a model opened from a .pt2 can be saved as one; save TorchScript (.pt) instead.")
                .arg(QFileInfo(path).fileName())};
  const auto inputs = io::defaultInputs(document, 0);
  if (!inputs.inputs) return {false, inputs.error};
  const auto saved = savePt2(revision, document.sourcePath(), path, inputs.inputs->values, &record);
  return {saved.ok, saved.error};
}

}  // namespace graft::core::io
