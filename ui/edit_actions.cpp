#include "ui/edit_actions.h"

#include "core/edit/edit_targets.h"
#include "core/model/document.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/document/document_controller.h"
#include "ui/main_docks.h"
#include "ui/selection.h"
#include "ui/shown_view.h"
#include "ui/op_palette_dialog.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTimer>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QInputDialog>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QMenu>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QStatusBar>
#include <cstdio>

namespace graft::ui {

namespace edit = core::edit;

EditActions::EditActions(const Workbench& parts, QObject* parent)
    : QObject(parent), parts_(parts), controller_(parts.controller) {
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
  connect(save, &QAction::triggered, controller_, [this] { controller_->save(); });
  saveAs = new QAction(tr("Save Revision &As…"), this);
  saveAs->setObjectName(QStringLiteral("saveAsAction"));
  // QKeySequence::SaveAs has no binding under a plain X11 window manager.
  saveAs->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)});
  connect(saveAs, &QAction::triggered, controller_, [this] { controller_->saveAsDialog(); });
  for (QAction* a : {undo, redo, deleteNode, insertOp, replaceOp, editValue, saveAs}) parts_.window->addAction(a);

  connect(undo, &QAction::triggered, controller_, &DocumentController::undo);
  connect(redo, &QAction::triggered, controller_, &DocumentController::redo);
  connect(deleteNode, &QAction::triggered, this, [this] { applyEdit(edit::DeleteNode{parts_.selection->selected()}); });
  connect(replaceOp, &QAction::triggered, this, [this] {
    const auto* node = parts_.shown->view() ? parts_.shown->view()->node(parts_.selection->selected()) : nullptr;
    if (!node) return;
    OpPaletteDialog dialog(tr("Replace %1 by").arg(node->kind), QString(), parts_.window);
    if (dialog.exec() == QDialog::Accepted && !dialog.selectedOp().isEmpty())
      applyEdit(edit::ReplaceOp{node->id, dialog.selectedOp()});
  });
  connect(insertOp, &QAction::triggered, this, [this] {
    const auto* doc = controller_->document();
    if (!doc) return;
    const auto inputs = edit::edgeInputs(*doc->current(), parts_.selection->selected());
    if (inputs.isEmpty()) { parts_.window->statusBar()->showMessage(tr("Select a node with an input edge")); return; }
    int index = inputs.front().index;
    if (inputs.size() > 1) {
      QStringList names;
      for (const auto& s : inputs) names << QStringLiteral("%1 (%2)").arg(s.name, s.type);
      bool ok = false;
      const QString pick =
          QInputDialog::getItem(parts_.window, tr("Insert op"), tr("On the edge into:"), names, 0, false, &ok);
      if (!ok) return;
      index = inputs[names.indexOf(pick)].index;
    }
    OpPaletteDialog dialog(tr("Insert op"), QString(), parts_.window);
    if (dialog.exec() == QDialog::Accepted && !dialog.selectedOp().isEmpty())
      applyEdit(edit::InsertOp{parts_.selection->selected(), index, dialog.selectedOp(), {}});
  });
  connect(editValue, &QAction::triggered, this, [this] {
    const auto* doc = controller_->document();
    if (!doc) return;
    const auto slots_ = edit::constantArguments(*doc->current(), parts_.selection->selected());
    if (slots_.isEmpty()) {
      parts_.window->statusBar()->showMessage(tr("The selected node has no editable constant"));
      return;
    }
    QStringList names;
    for (const auto& s : slots_) names << QStringLiteral("%1: %2 = %3").arg(s.argument, s.type, s.value);
    bool ok = false;
    const QString pick = QInputDialog::getItem(parts_.window, tr("Edit value"), tr("Argument:"), names, 0, false, &ok);
    if (!ok) return;
    const auto& slot = slots_[names.indexOf(pick)];
    const QString text =
        QInputDialog::getText(parts_.window, tr("Edit value"), tr("%1 (%2):").arg(slot.argument, slot.type),
                              QLineEdit::Normal, slot.value, &ok);
    if (ok) applyEdit(edit::EditConstant{parts_.selection->selected(), slot.argument, text});
  });

  connect(parts_.selection, &Selection::changed, this, &EditActions::updateEnabled);
  connect(controller_, &DocumentController::documentChanged, this, &EditActions::updateEnabled);
  updateEnabled();
}

QList<QAction*> EditActions::nodeActions() const { return {deleteNode, insertOp, replaceOp, editValue}; }

void EditActions::fillEditMenu(QMenu* menu) const {
  menu->addAction(undo);
  menu->addAction(redo);
  menu->addSeparator();
  menu->addActions(nodeActions());
}

void EditActions::addContextMenus(canvas::GraphCanvas* canvas, QWidget* modules) {
  modules->setContextMenuPolicy(Qt::ActionsContextMenu);
  modules->addActions(nodeActions());
  canvas->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(canvas, &QWidget::customContextMenuRequested, this, [this, canvas](const QPoint& pos) {
    for (auto* item : canvas->items(pos))
      if (auto* node = dynamic_cast<canvas::NodeItem*>(item)) {
        parts_.selection->select(node->id());
        QMenu menu(parts_.window);
        menu.addActions(nodeActions());
        menu.exec(canvas->viewport()->mapToGlobal(pos));
        return;
      }
  });
}

void EditActions::updateEnabled() {
  const auto* doc = controller_->document();
  undo->setEnabled(doc && doc->canUndo());
  redo->setEnabled(doc && doc->canRedo());
  const bool node = doc && parts_.selection->selected() != core::model::kNoNode;
  for (QAction* a : nodeActions()) a->setEnabled(node);
  saveAs->setEnabled(doc);
  save->setEnabled(doc);
}

bool EditActions::applyEdit(const edit::Edit& e, bool interactive) {
  const auto r = controller_->apply(e);
  if (!r.ok()) {
    parts_.window->statusBar()->showMessage(tr("Edit refused: %1").arg(r.error));
    if (interactive) QMessageBox::warning(parts_.window, tr("Edit refused"), r.error);
    Q_EMIT editRefused(r.error);
    Q_EMIT diagnosticsReported(r.diagnostics());
    return false;
  }
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
