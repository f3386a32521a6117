#pragma once
// The one question asked before unsaved work would be dropped (quit, close, opening another
// model or sample, a recent file, a drop, a tour that opens a sample): Save, Discard or Cancel.
#include <QtCore/QString>

#include <functional>

class QWidget;

namespace graft::ui {

enum class UnsavedAnswer {
  Save,     // save, then go on (a cancelled save cancels)
  Discard,  // go on; the journal is closed
  Cancel,   // leave everything as it was
  Keep,     // nobody to ask (an offscreen run): go on, and keep the journal for recovery
};

using UnsavedPrompt = std::function<UnsavedAnswer(const QString& documentName)>;

// A QMessageBox with Save, Discard and Cancel; Keep on the offscreen and minimal platforms, where
// no one could answer.
UnsavedAnswer askAboutUnsaved(QWidget* parent, const QString& documentName);

}  // namespace graft::ui
