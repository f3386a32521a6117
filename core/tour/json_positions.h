#pragma once
// Where each value of a JSON text starts, by path ("steps/2/actions/0/do"), so that a problem
// found after QJsonDocument has parsed the text can still be reported at a line and column.
#include "core/tour/tour.h"

#include <QtCore/QByteArray>
#include <QtCore/QHash>

namespace graft::core::tour {

class JsonPositions {
 public:
  // `utf8` must be valid JSON (check with QJsonDocument first); an invalid text indexes less.
  explicit JsonPositions(const QByteArray& utf8);
  // The position of the value at `path`; the nearest indexed parent's when `path` is absent.
  Position at(const QString& path) const;
  // The position of the key naming the value at `path` (an object member); at(path) otherwise.
  Position keyAt(const QString& path) const;
  // A byte offset into the text as a 1-based line and column (columns count characters).
  Position positionOf(qsizetype offset) const;

 private:
  QByteArray text_;
  QHash<QString, qsizetype> offsets_, keyOffsets_;
};

}  // namespace graft::core::tour
