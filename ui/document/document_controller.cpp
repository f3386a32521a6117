#include "ui/document/document_controller.h"

#include "core/edit/session.h"
#include "core/io/file_policy.h"
#include "core/io/save.h"
#include "core/model/document.h"
#include "core/run/outside_effects.h"
#include "ui/document/abandonable.h"
#include "ui/document/off_thread.h"
#include "ui/error_dialog.h"
#include "ui/recent_files.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QPushButton>

namespace graft::ui {

namespace edit = core::edit;
using core::model::Document;

namespace {
// A document made on a worker thread belongs to the GUI thread from then on.
core::io::LoadResult adopted(core::io::LoadResult result) {
  if (result.document) result.document->moveToThread(QCoreApplication::instance()->thread());
  return result;
}
}  // namespace

DocumentController::DocumentController(QWidget* window) : QObject(window), window_(window) {
  // The service announces every change once, after the journal has it.
  connect(&service_, &core::document::DocumentService::changed, this, [this](const core::document::ChangeEvent& e) {
    Q_EMIT documentChanged(service_.document(), e);
    Q_EMIT modifiedChanged(isModified());
  });
}

DocumentController::~DocumentController() { closeJournal(); }

void DocumentController::setBusy(const QString& what) {
  busy_ = what;
  Q_EMIT busyChanged(what);
}

bool DocumentController::openFile(const QString& path, bool freeze, bool trust) {
  const core::io::LoadOptions options{freeze, trust};
  const auto retryTrusted = [this, path, freeze] { return openFile(path, freeze, true); };
  if (!openLoaded(tr("Opening %1…").arg(QFileInfo(path).fileName()), path,
                  [path, options] { return core::io::loadFile(path, options); },
                  trust ? std::function<bool()>() : std::function<bool()>(retryTrusted)))
    return false;
  addRecentFile(path);
  return true;
}

bool DocumentController::askTrust(const QString& what) {
  if (trustPrompt_) return trustPrompt_(what);
  QMessageBox box(QMessageBox::Warning, tr("Trust this model?"), what, QMessageBox::Cancel, window_);
  box.setInformativeText(
      tr("A model file is data: Graft runs code that reaches outside the process only for a file you "
         "trust. Trust it only if you know where it came from."));
  QPushButton* trust = box.addButton(tr("Trust and Continue"), QMessageBox::AcceptRole);
  box.setDefaultButton(QMessageBox::Cancel);
  box.exec();
  return box.clickedButton() == trust;
}

bool DocumentController::trustSource() {
  if (!document()) return false;
  const auto revision = document()->current();
  if (revision->sourceTrust()->trusted()) return false;
  const auto effects = core::run::outsideEffects(*revision);
  if (effects.empty()) {
    Q_EMIT message(tr("Nothing to trust: no run of this model reaches outside the process."), 4000);
    return false;
  }
  QStringList lines;
  for (const auto& e : effects) lines << tr("%1 (%2) %3").arg(e.op, e.where, e.why);
  if (!askTrust(tr("Runs of %1 would call:\n%2").arg(document()->displayName(), lines.join(QLatin1Char('\n')))))
    return false;
  revision->sourceTrust()->grant();
  Q_EMIT message(tr("%1 is trusted: its runs may reach outside the process.").arg(document()->displayName()), 4000);
  return true;
}

bool DocumentController::openSample(const QString& name, bool freeze) {
  return openLoaded(tr("Opening sample %1…").arg(name), QString(),
                    [name, freeze] { return core::io::loadSample(name, {freeze}); });
}

bool DocumentController::openLoaded(const QString& what, const QString& reportAs,
                                    const std::function<core::io::LoadResult()>& load,
                                    const std::function<bool()>& retryTrusted) {
  if (busy() || !mayDropDocument()) return false;
  setBusy(what);
  cancelOpen_ = false;
  // Abandonable: a load that hangs (a loop inside libtorch) must not hold the window forever.
  auto loaded = runAbandonable(
      window_, what,
      [load] {
        return core::model::guarded([&] { return load(); }, [](const QString& error) {
          core::io::LoadResult failed;
          failed.error.kind = core::io::LoadErrorKind::Other;
          failed.error.headline = error;
          return failed;
        });
      },
      [](core::io::LoadResult& result) { result = adopted(std::move(result)); }, cancelOpen_);
  setBusy({});
  if (!loaded) {
    QString task = what;
    if (task.endsWith(QChar(0x2026))) task.chop(1);  // "Opening x.pt…"
    Q_EMIT message(tr("%1 cancelled: nothing was opened.").arg(task), 0);
    Q_EMIT loadCancelled();
    return false;
  }
  auto result = std::move(*loaded);
  if (!result.ok() && retryTrusted && result.error.kind == core::io::LoadErrorKind::RunsCodeOnLoad &&
      askTrust(result.error.headline + QLatin1Char('\n') + result.error.details))
    return retryTrusted();
  if (!result.ok()) {
    Q_EMIT message(result.error.headline, 0);
    reportLoadFailure(result.error, reportAs);
    return false;
  }
  install(std::move(result.document));
  return true;
}

void DocumentController::reportLoadFailure(const core::io::LoadError& error, const QString& file) {
  Q_EMIT diagnosticsReported(error.diagnostics(file));
  showError(window_, tr("Cannot open model"), error.headline, error.hint, error.details);
  Q_EMIT loadFailed(error.headline);
}

void DocumentController::install(std::unique_ptr<Document> document, std::unique_ptr<edit::Session> session) {
  closeJournal();  // its journal refers to the old document
  if (session) service_.adopt(std::move(document), std::move(session));
  else service_.open(std::move(document), edit::Session::newJournalPath());
}

bool DocumentController::close() {
  if (!document()) return true;
  if (busy() || !mayDropDocument()) return false;
  closeJournal();
  service_.close(/*keepJournal=*/true);  // closeJournal decided its fate
  return true;
}

void DocumentController::closeJournal() {
  // A kept journal stays unclosed (and unlocked once the Session goes): recovery offers it.
  service_.endJournal(/*markClosed=*/!keepJournal_);
  keepJournal_ = false;
}

void DocumentController::keepJournalForRecovery() { keepJournal_ = isModified(); }

bool DocumentController::isModified() const {
  return service_.isModified();
}

bool DocumentController::mayDropDocument() {
  if (!isModified()) {
    keepJournal_ = false;  // saved since a logout asked to keep it
    return true;
  }
  const UnsavedAnswer answer = unsavedPrompt_ ? unsavedPrompt_(document()->displayName())
                                              : askAboutUnsaved(window_, document()->displayName());
  // The answer decides the journal's fate, also after a logout that was cancelled.
  keepJournal_ = answer == UnsavedAnswer::Keep || (keepJournal_ && answer == UnsavedAnswer::Cancel);
  switch (answer) {
    case UnsavedAnswer::Save: return save();
    case UnsavedAnswer::Discard: return true;
    case UnsavedAnswer::Keep: return true;
    case UnsavedAnswer::Cancel: return false;
  }
  return false;
}

QString DocumentController::refusal() const {
  if (!service_.isOpen()) return tr("Open a model first.");
  if (busy()) return tr("Graft is busy (%1); try again when it is done.").arg(busy_);
  return {};
}

edit::EditResult DocumentController::apply(const edit::Edit& e) {
  if (const QString why = refusal(); !why.isEmpty()) {
    edit::EditResult refused;
    refused.error = why;
    return refused;
  }
  return service_.apply(e);
}

core::rewrite::ApplyResult DocumentController::applyRewrite(const QVector<core::rewrite::Step>& steps) {
  if (const QString why = refusal(); !why.isEmpty()) {
    core::rewrite::ApplyResult refused;
    refused.error = why;
    return refused;
  }
  // The rules run off the GUI thread; the commit (journal, then announcement) comes back to it.
  setBusy(tr("Applying rules…"));
  const auto base = document()->current();
  auto ids = service_.ids();  // a copy: the worker draws from it, the commit adopts what it drew
  auto prepared = runOffGuiThread([base, steps, &ids] {
    return core::model::guarded([&] { return core::document::DocumentService::prepareRewrite(base, steps, ids); },
                                [](const QString& error) {
                                  core::rewrite::ApplyResult failed;
                                  failed.error = error;
                                  return failed;
                                });
  });
  setBusy({});
  if (prepared.ok() && !service_.commitRewrite(base, prepared, steps, ids)) {
    prepared.revision.reset();
    prepared.error = tr("the revision changed while the rules ran; apply them again");
  }
  return prepared;
}

bool DocumentController::keepInFloat32(const std::unordered_set<core::model::NodeId>& nodes,
                                       const core::rewrite::FloatingValues& floating, QString* error,
                                       const core::rewrite::MixedPrecision& precision) {
  if (!service_.isOpen() || busy()) {
    if (error) *error = tr("no model is open, or Graft is busy");
    return false;
  }
  return service_.keepInFloat32(nodes, floating, error, precision) != nullptr;
}

void DocumentController::undo() {
  if (!busy()) service_.undo();
}

void DocumentController::redo() {
  if (!busy()) service_.redo();
}

void DocumentController::setCurrent(int index) {
  if (!busy()) service_.setCurrent(index);
}

QString DocumentController::suggestedSavePath() const {
  if (!service_.savePath().isEmpty()) return service_.savePath();
  if (!document() || document()->sourcePath().isEmpty()) return QStringLiteral("edited.pt");
  const QFileInfo source(document()->sourcePath());
  return source.dir().filePath(source.completeBaseName() + QStringLiteral("-edited.") + source.suffix());
}

bool DocumentController::save() {
  if (!document()) return false;
  if (!service_.savePath().isEmpty())
    return saveAs(service_.savePath(), /*confirmed=*/true);  // the file Graft itself wrote last
  return saveAsDialog();
}

bool DocumentController::saveAsDialog() {
  if (!document()) return false;
  // A program saves as a program or as TorchScript; a TorchScript model as TorchScript.
  const bool program = document()->format() == QLatin1String("pt2");
  const QString filter =
      program ? tr("torch.export programs (*.pt2);;TorchScript archives (*.pt)") : tr("TorchScript archives (*.pt)");
  // The dialog does not ask about an existing file: saveAs asks, the same way for every path.
  const QString path = QFileDialog::getSaveFileName(window_, tr("Save revision as"), suggestedSavePath(), filter,
                                                    nullptr, QFileDialog::DontConfirmOverwrite);
  return !path.isEmpty() && saveAs(path);
}

bool DocumentController::mayOverwrite(const QString& path) {
  if (!QFileInfo::exists(path)) return true;
  if (overwritePrompt_) return overwritePrompt_(path);
  return QMessageBox::question(window_, tr("Replace file?"),
                               tr("%1 already exists. Replace it with revision %2?")
                                   .arg(QDir::toNativeSeparators(path)).arg(document()->currentIndex()),
                               QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Yes;
}

bool DocumentController::saveAs(const QString& path, bool confirmed, bool asCopy) {
  if (!document() || busy()) return false;
  // The output policy (core/io/file_policy.h): never the opened model (by its canonical path, a
  // symlink or a hard link included), never a device.
  if (const QString why = core::io::checkOutputPath(path, {document()->sourcePath()}); !why.isEmpty()) {
    Q_EMIT diagnosticsReported(core::io::SaveResult{false, why}.diagnostics(path));
    QMessageBox::warning(window_, tr("Save refused"), why);
    return false;
  }
  if (!confirmed && !mayOverwrite(path)) {
    Q_EMIT message(tr("Not saved: %1 was kept").arg(path), 5000);
    return false;
  }
  setBusy(tr("Saving %1…").arg(QFileInfo(path).fileName()));
  const Document& doc = *document();
  const auto revision = doc.current();
  const auto r = runOffGuiThread([&doc, revision, path] {
    return core::model::guarded([&] { return core::document::DocumentService::write(doc, revision, path); },
                                [](const QString& error) { return core::io::SaveResult{false, error}; });
  });
  setBusy({});
  if (!r.ok) {
    Q_EMIT diagnosticsReported(r.diagnostics(path));
    QMessageBox::warning(window_, tr("Save failed"), r.error);
    return false;
  }
  Q_EMIT diagnosticsReported(r.diagnostics(path));  // a warning when it could not be run first
  Q_EMIT message(
      r.warning.isEmpty()
          ? tr("Saved revision %1 to %2").arg(doc.currentIndex()).arg(path)
          : tr("Saved revision %1 to %2 (not checked: the model records no inputs)").arg(doc.currentIndex()).arg(path),
      0);
  if (asCopy) return true;  // the user's work is still unsaved: the `*` stays
  service_.markSaved(doc.currentIndex(), path);  // announced: modifiedChanged
  return true;
}

QString DocumentController::journalPath() const { return service_.journalPath(); }

QJsonObject DocumentController::journal() const { return service_.journal(); }

bool DocumentController::offerRecovery() {
  for (const QString& path : edit::Session::unclosedJournals()) {
    if (service_.isOpen() && path == service_.journalPath()) continue;
    const auto journal = edit::Session::readJournal(path, nullptr);
    const int edits = journal ? journal->value(QLatin1String("edits")).toArray().size() : 0;
    const QJsonObject source = journal ? journal->value(QLatin1String("source")).toObject() : QJsonObject();
    const QString model = source.value(QLatin1String("sample")).toString().isEmpty()
                              ? source.value(QLatin1String("path")).toString()
                              : QStringLiteral("sample:") + source.value(QLatin1String("sample")).toString();
    if (edits > 0 && QMessageBox::question(window_, tr("Recover session?"),
                                           tr("Graft did not close cleanly last time. Recover the %1 edits made to %2?")
                                               .arg(edits).arg(model),
                                           QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes)
      if (recover(path)) return true;
    // Declined, empty or unrecoverable: kept for graft-cli replay, but not offered again.
    edit::Session::markClosed(path);
  }
  return false;
}

bool DocumentController::recover(const QString& journalPath) {
  QString error;
  const auto journal = edit::Session::readJournal(journalPath, &error);
  if (!journal) {
    Q_EMIT message(error, 0);
    return false;
  }
  if (busy() || !mayDropDocument()) return false;
  const QJsonObject source = journal->value(QLatin1String("source")).toObject();
  const bool freeze = source.value(QLatin1String("frozen")).toBool(true);
  const QString sample = source.value(QLatin1String("sample")).toString();
  const QString path = source.value(QLatin1String("path")).toString();
  // The model is loaded and the edits replayed on a worker thread, into a document nobody else
  // sees yet; the new session journals them as they are replayed.
  struct Recovered {
    core::io::LoadResult loaded;
    core::document::DocumentService::Replayed replayed;
  };
  setBusy(tr("Recovering %1 edits…").arg(journal->value(QLatin1String("edits")).toArray().size()));
  auto recovered = runOffGuiThread([&]() -> std::shared_ptr<Recovered> {
    auto out = std::make_shared<Recovered>();
    core::model::guarded(
        [&] {
          out->loaded = sample.isEmpty() ? core::io::loadFile(path, {freeze}) : core::io::loadSample(sample, {freeze});
          if (!out->loaded.ok()) return 0;
          out->replayed = core::document::DocumentService::replayInto(std::move(out->loaded.document), *journal,
                                                                     edit::Session::newJournalPath());
          out->replayed.document->moveToThread(QCoreApplication::instance()->thread());
          return 0;
        },
        [&](const QString& e) {
          out->replayed.result.error = e;
          return 0;
        });
    return out;
  });
  setBusy({});
  if (!recovered->loaded.ok() && !recovered->replayed.document) {
    reportLoadFailure(recovered->loaded.error, path);
    return false;
  }
  const auto& r = recovered->replayed.result;
  if (!r.ok) {
    if (recovered->replayed.session)
      recovered->replayed.session->close();  // a failed recovery leaves no journal of its own
    // What was replayed goes before the message: after running out of memory, showing it needs some.
    recovered->replayed.session.reset();
    recovered->replayed.document.reset();
    Q_EMIT diagnosticsReported(r.diagnostics(journalPath));
    QMessageBox::warning(window_, tr("Recovery failed"), r.error);
    return false;
  }
  if (!path.isEmpty()) addRecentFile(path);
  install(std::move(recovered->replayed.document), std::move(recovered->replayed.session));
  edit::Session::markClosed(journalPath);  // its edits now live on in the new session's journal
  if (!r.warning.isEmpty()) Q_EMIT diagnosticsReported(r.diagnostics(journalPath));  // what a journal cut short dropped
  Q_EMIT message(r.warning.isEmpty() ? tr("Recovered %1 edits").arg(r.applied)
                                     : tr("Recovered %1 edits; %2").arg(r.applied).arg(r.warning),
                 0);
  return true;
}

}  // namespace graft::ui
