#pragma once
// The tours Graft ships (resources/tours/*.json, read from the qrc as :/tours) and tours opened
// from disk.
#include "core/tour/tour_parser.h"

namespace graft::core::tour {

// The built-in tours, in file-name order. A shipped tour that fails to parse is a build defect:
// it is left out and listed in `problems`.
QVector<Tour> builtinTours(QVector<TourError>* problems = nullptr);

// `spec` is a built-in tour's id or a path to a tour file; on failure `error` says why
// (file:line:column for a malformed file).
std::optional<Tour> resolveTour(const QString& spec, TourError* error);

}  // namespace graft::core::tour
