#include "core/tour/tour_library.h"

#include <QtCore/QDir>
#include <QtCore/QFileInfo>

namespace graft::core::tour {

QVector<Tour> builtinTours(QVector<TourError>* problems) {
  QVector<Tour> tours;
  const QDir dir(QStringLiteral(":/tours"));
  for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
    auto parsed = parseTourFile(dir.filePath(name));
    if (!parsed.ok()) {
      if (problems) problems->push_back(parsed.error);
      continue;
    }
    parsed.tour.source = QStringLiteral("builtin");
    tours.push_back(std::move(parsed.tour));
  }
  return tours;
}

std::optional<Tour> resolveTour(const QString& spec, TourError* error) {
  for (auto& t : builtinTours())
    if (t.id == spec) return t;
  if (QFileInfo(spec).isFile()) {
    auto parsed = parseTourFile(spec);
    if (parsed.ok()) return parsed.tour;
    if (error) *error = parsed.error;
    return std::nullopt;
  }
  QStringList ids;
  for (const auto& t : builtinTours()) ids << t.id;
  if (error)
    *error = TourError{spec, 0, 0,
                       QStringLiteral("no built-in tour has this id and no such file exists (built-in tours: %1)")
                           .arg(ids.join(QStringLiteral(", ")))};
  return std::nullopt;
}

}  // namespace graft::core::tour
