#include "ui/edit_actions.h"

#include "core/edit/edit_targets.h"
#include "core/edit/session.h"
#include "core/io/file_policy.h"
#include "core/io/save.h"
#include "ui/history_dock.h"
#include "ui/main_window.h"
#include "ui/op_palette_dialog.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTimer>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QInputDialog>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QStatusBar>
#include <cstdio>

namespace graft::ui {

namespace edit = core::edit;

EditActions::EditActions(MainWindow* window) : QObject(window), window_(window) {
  undo = new QAction(tr("&Undo"), this);
  undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  redo = new QAction(tr("&Redo"), this);
  redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  deleteNode = new QAction(tr("&Delete Node"), this);
  deleteNode->setShortcut(QKeySequence::Delete);
  insertOp = new QAction(tr("&Insert Op…"), this);
  insertOp->setShortcut(QKeySequence(Qt::Key_Insert));
  replaceOp = new QAction(tr("Re&place Op…"), this);
  replaceOp->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  editValue = new QAction(tr("Edit &Value…"), this);
  editValue->setShortcut(QKeySequence(Qt::Key_F2));
  save = new QAction(tr("&Save"), this);
  save->setObjectName(QStringLiteral("saveAction"));
  save->setShortcut(QKeySequence::Save);
  connect(save, &QAction::triggered, this, [this] { saveCurrent(); });
  saveAs = new QAction(tr("Save Revision &As…"), this);
  saveAs->setObjectName(QStringLiteral("saveAsAction"));
  // QKeySequence::SaveAs has no binding under a plain X11 window manager.
  saveAs->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)});
  for (QAction* a : {undo, redo, deleteNode, insertOp, replaceOp, editValue, saveAs}) window->addAction(a);

  connect(undo, &QAction::triggered, this, [this] { if (session_) session_->document().undo(); });
  connect(redo, &QAction::triggered, this, [this] { if (session_) session_->document().redo(); });
  connect(deleteNode, &QAction::triggered, this, [this] { applyEdit(edit::DeleteNode{window_->selectedNode()}); });
  connect(replaceOp, &QAction::triggered, this, [this] {
    const auto* node = window_->view() ? window_->view()->node(window_->selectedNode()) : nullptr;
    if (!node) return;
    OpPaletteDialog dialog(tr("Replace %1 by").arg(node->kind), QString(), window_);
    if (dialog.exec() == QDialog::Accepted && !dialog.selectedOp().isEmpty())
      applyEdit(edit::ReplaceOp{node->id, dialog.selectedOp()});
  });
  connect(insertOp, &QAction::triggered, this, [this] {
    if (!session_) return;
    const auto inputs = edit::edgeInputs(*session_->document().current(), window_->selectedNode());
    if (inputs.isEmpty()) { window_->statusBar()->showMessage(tr("Select a node with an input edge")); return; }
    int index = inputs.front().index;
    if (inputs.size() > 1) {
      QStringList names;
      for (const auto& s : inputs) names << QStringLiteral("%1 (%2)").arg(s.name, s.type);
      bool ok = false;
      const QString pick = QInputDialog::getItem(window_, tr("Insert op"), tr("On the edge into:"), names, 0, false, &ok);
      if (!ok) return;
      index = inputs[names.indexOf(pick)].index;
    }
    OpPaletteDialog dialog(tr("Insert op"), QString(), window_);
    if (dialog.exec() == QDialog::Accepted && !dialog.selectedOp().isEmpty())
      applyEdit(edit::InsertOp{window_->selectedNode(), index, dialog.selectedOp(), {}});
  });
  connect(editValue, &QAction::triggered, this, [this] {
    if (!session_) return;
    const auto slots_ = edit::constantArguments(*session_->document().current(), window_->selectedNode());
    if (slots_.isEmpty()) { window_->statusBar()->showMessage(tr("The selected node has no editable constant")); return; }
    QStringList names;
    for (const auto& s : slots_) names << QStringLiteral("%1: %2 = %3").arg(s.argument, s.type, s.value);
    bool ok = false;
    const QString pick = QInputDialog::getItem(window_, tr("Edit value"), tr("Argument:"), names, 0, false, &ok);
    if (!ok) return;
    const auto& slot = slots_[names.indexOf(pick)];
    const QString text = QInputDialog::getText(window_, tr("Edit value"), tr("%1 (%2):").arg(slot.argument, slot.type),
                                               QLineEdit::Normal, slot.value, &ok);
    if (ok) applyEdit(edit::EditConstant{window_->selectedNode(), slot.argument, text});
  });
  connect(saveAs, &QAction::triggered, this, [this] {
    if (!session_) return;
    // A program saves as a program or as TorchScript; a TorchScript model as TorchScript.
    const bool program = session_->document().format() == QLatin1String("pt2");
    const QString filter = program ? tr("torch.export programs (*.pt2);;TorchScript archives (*.pt)")
                                   : tr("TorchScript archives (*.pt)");
    const QString path = QFileDialog::getSaveFileName(window_, tr("Save revision as"), suggestedSavePath(), filter, nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty()) saveRevisionAs(path);
  });

  history_ = new HistoryDock(window);
  auto* dock = new QDockWidget(tr("History"), window);
  dock->setObjectName(QStringLiteral("historyDock"));
  dock->setWidget(history_);
  window->addDockWidget(Qt::RightDockWidgetArea, dock);
  connect(window, &MainWindow::selectionChanged, this, &EditActions::updateEnabled);
  updateEnabled();
}

EditActions::~EditActions() {
  if (session_) session_->close();
}

QList<QAction*> EditActions::nodeActions() const { return {deleteNode, insertOp, replaceOp, editValue}; }

void EditActions::fillEditMenu(QMenu* menu) const {
  menu->addAction(undo);
  menu->addAction(redo);
  menu->addSeparator();
  menu->addActions(nodeActions());
}

void EditActions::updateEnabled() {
  auto* doc = session_ ? &session_->document() : nullptr;
  undo->setEnabled(doc && doc->canUndo());
  redo->setEnabled(doc && doc->canRedo());
  const bool node = doc && window_->selectedNode() != core::model::kNoNode;
  for (QAction* a : nodeActions()) a->setEnabled(node);
  saveAs->setEnabled(doc);
  save->setEnabled(doc);
}

bool EditActions::applyEdit(const edit::Edit& e, bool interactive) {
  if (!session_) return false;
  const auto r = session_->apply(e);
  if (!r.ok()) {
    window_->statusBar()->showMessage(tr("Edit refused: %1").arg(r.error));
    if (interactive) QMessageBox::warning(window_, tr("Edit refused"), r.error);
    Q_EMIT editRefused(r.error);
    Q_EMIT diagnosticsReported(r.diagnostics());
    return false;
  }
  return true;
}

QString EditActions::suggestedSavePath() const {
  if (!savePath_.isEmpty()) return savePath_;
  if (!session_ || session_->document().sourcePath().isEmpty()) return QStringLiteral("edited.pt");
  const QFileInfo source(session_->document().sourcePath());
  return source.dir().filePath(source.completeBaseName() + QStringLiteral("-edited.") + source.suffix());
}

bool EditActions::isModified() const {
  return session_ && session_->document().count() > 1 && session_->document().currentIndex() != savedIndex_;
}

bool EditActions::saveCurrent() {
  if (!session_) return false;
  if (!savePath_.isEmpty()) return saveRevisionAs(savePath_, true);
  const bool program = session_->document().format() == QLatin1String("pt2");
  const QString filter = program ? tr("torch.export programs (*.pt2);;TorchScript archives (*.pt)") : tr("TorchScript archives (*.pt)");
  const QString path = QFileDialog::getSaveFileName(window_, tr("Save revision"), suggestedSavePath(), filter, nullptr,
                                                    QFileDialog::DontConfirmOverwrite);
  return !path.isEmpty() && saveRevisionAs(path);
}

bool EditActions::mayDropDocument() {
  if (!isModified()) {
    keepJournal_ = false;  // saved since a logout asked to keep it
    return true;
  }
  const UnsavedAnswer answer = prompt_ ? prompt_(session_->document().displayName())
                                       : askAboutUnsaved(window_, session_->document().displayName());
  // The answer decides the journal's fate, also after a logout that was cancelled.
  keepJournal_ = answer == UnsavedAnswer::Keep || (keepJournal_ && answer == UnsavedAnswer::Cancel);
  switch (answer) {
    case UnsavedAnswer::Save: return saveCurrent();
    case UnsavedAnswer::Discard: return true;
    case UnsavedAnswer::Keep: return true;
    case UnsavedAnswer::Cancel: return false;
  }
  return false;
}

bool EditActions::saveRevisionAs(const QString& path, bool confirmed) {
  if (!session_) return false;
  const auto& doc = session_->document();
  // The output policy (core/io/file_policy.h): never the opened model (by its canonical path, a
  // symlink or a hard link included), never a device.
  Q_UNUSED(confirmed);
  if (const QString why = core::io::checkOutputPath(path, {doc.sourcePath()}); !why.isEmpty()) {
    QMessageBox::warning(window_, tr("Save refused"), why);
    return false;
  }
  const auto r = core::io::saveAs(doc, doc.current(), path);
  if (!r.ok) {
    Q_EMIT diagnosticsReported(r.diagnostics(path));
    QMessageBox::warning(window_, tr("Save failed"), r.error);
    return false;
  }
  window_->statusBar()->showMessage(tr("Saved revision %1 to %2").arg(doc.currentIndex()).arg(path));
  savedIndex_ = doc.currentIndex();
  savePath_ = path;
  Q_EMIT modifiedChanged(isModified());
  return true;
}

void EditActions::closeSession() {
  // A kept journal stays unclosed (and unlocked once the Session goes): recovery offers it.
  if (session_ && !keepJournal_) session_->close();
  session_.reset();
  keepJournal_ = false;
  savedIndex_ = 0;
  savePath_.clear();
  history_->setDocument(nullptr);
  updateEnabled();
}

void EditActions::startSession() {
  closeSession();
  auto* doc = window_->document();
  if (!doc) return;
  session_ = std::make_unique<edit::Session>(*doc);
  session_->setJournalPath(edit::Session::newJournalPath());
  connect(doc, &core::model::Document::currentChanged, this, &EditActions::updateEnabled);
  connect(doc, &core::model::Document::currentChanged, this, [this] { Q_EMIT modifiedChanged(isModified()); });
  history_->setDocument(doc);
  updateEnabled();
}

bool EditActions::offerRecovery() {
  for (const QString& path : edit::Session::unclosedJournals()) {
    if (session_ && path == session_->journalPath()) continue;
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

bool EditActions::recover(const QString& journalPath) {
  QString error;
  const auto journal = edit::Session::readJournal(journalPath, &error);
  if (!journal) { window_->statusBar()->showMessage(error); return false; }
  const QJsonObject source = journal->value(QLatin1String("source")).toObject();
  const bool freeze = source.value(QLatin1String("frozen")).toBool(true);
  const QString sample = source.value(QLatin1String("sample")).toString();
  const bool opened = sample.isEmpty() ? window_->openFile(source.value(QLatin1String("path")).toString(), freeze)
                                       : window_->openSample(sample, freeze);
  if (!opened || !session_) return false;
  const auto r = session_->replay(*journal);
  if (!r.ok) {
    Q_EMIT diagnosticsReported(r.diagnostics(journalPath));
    QMessageBox::warning(window_, tr("Recovery failed"), r.error);
    return false;
  }
  edit::Session::markClosed(journalPath);  // its edits now live on in the new session's journal
  if (!r.warning.isEmpty()) Q_EMIT diagnosticsReported(r.diagnostics(journalPath));  // what a journal cut short dropped
  window_->statusBar()->showMessage(r.warning.isEmpty() ? tr("Recovered %1 edits").arg(r.applied)
                                                        : tr("Recovered %1 edits; %2").arg(r.applied).arg(r.warning));
  return true;
}

void EditActions::runScript(const QString& path, std::function<bool(const QStringList& ruleIds)> rewrite) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    std::fprintf(stderr, "graft: cannot read %s\n", qPrintable(path));
    return;
  }
  const QJsonArray edits = QJsonDocument::fromJson(f.readAll()).array();
  auto step = std::make_shared<std::function<void(int)>>();
  *step = [this, edits, step, rewrite](int i) {
    if (i >= edits.size()) {
      std::printf("script-done\n");
      std::fflush(stdout);
      return;
    }
    QString error;
    const QJsonObject entry = edits[i].toObject();
    if (entry.contains(QLatin1String("rules"))) {
      QStringList ids;
      for (const auto& id : entry.value(QLatin1String("rules")).toArray()) ids << id.toString();
      if (rewrite && rewrite(ids)) std::printf("script-edit %d\n", i + 1);
      else std::printf("script-refused %d rules %s\n", i + 1, qPrintable(ids.join(QLatin1Char(' '))));
    } else {
      const auto e = edit::fromJson(entry, &error);
      if (!e || !applyEdit(*e, false)) std::printf("script-refused %d %s\n", i + 1, qPrintable(e ? QString() : error));
      else std::printf("script-edit %d\n", i + 1);
    }
    std::fflush(stdout);
    QTimer::singleShot(20, this, [step, i] { (*step)(i + 1); });
  };
  QTimer::singleShot(0, this, [step] { (*step)(0); });
}

}  // namespace graft::ui
