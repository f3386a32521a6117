#pragma once
// Reading tour files (JSON, documented in docs/tours.md). Problems are reported like rule files':
// `file:line:column: message`, for JSON syntax errors and for tours that parse but say
// something Graft does not know (an unknown action, a missing title, a misspelt key).
#include "core/rewrite/rule.h"
#include "core/tour/tour.h"

namespace graft::core::tour {

using TourError = rewrite::RuleError;  // the same shape as a rule file's error

struct TourParseResult {
  Tour tour;
  TourError error;
  bool ok() const { return !error.isError(); }
};

// `file` names the source in messages and becomes the tour's `source`.
TourParseResult parseTour(const QByteArray& utf8, const QString& file);
TourParseResult parseTourFile(const QString& path);

}  // namespace graft::core::tour
