#pragma once
// What one change to the open document was, as DocumentService announces it and the window's
// views receive it: they switch on the kind instead of working out what changed (as Tiled's
// Document::changed(ChangeEvent) does). QtCore only, so ui/ headers may carry it.
#include <QtCore/QMetaType>
#include <QtCore/QString>

namespace graft::core::document {

struct ChangeEvent {
  enum class Kind {
    Opened,         // a document was installed (revision: its current one)
    Closed,         // no document any more (revision -1)
    RevisionAdded,  // a change made revision `revision`, now current
    CurrentMoved,   // undo, redo or a History click made `revision` current
    Saved,          // `revision` was written to `path`
  };
  Kind kind = Kind::Opened;
  int revision = -1;
  QString path;  // Saved only

  // Another document (or none): everything shown about the previous one goes.
  bool replacesDocument() const { return kind == Kind::Opened || kind == Kind::Closed; }
  // The same document shows another revision.
  bool movesRevision() const { return kind == Kind::RevisionAdded || kind == Kind::CurrentMoved; }
};

}  // namespace graft::core::document
