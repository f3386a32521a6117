#include "core/remote/remote_device.h"

#include <QtCore/QRegularExpression>
#include <QtCore/QUrlQuery>

namespace graft::core::remote {

namespace {
const QString kScheme = QStringLiteral("ssh://");
}

QString RemoteDevice::spec() const {
  QString s = kScheme + host + QLatin1Char('/') + device;
  if (!python.isEmpty()) s += QStringLiteral("?python=") + python;
  return s;
}

bool isRemoteDevice(const QString& name) { return name.startsWith(kScheme, Qt::CaseInsensitive); }

std::optional<RemoteDevice> parseRemoteDevice(const QString& name, QString* error) {
  const auto failWith = [&](const QString& why) -> std::optional<RemoteDevice> {
    if (error)
      *error = QStringLiteral("%1: %2 (a remote device is ssh://HOST/DEVICE[?python=PATH], DEVICE cpu or cuda[:N])")
                   .arg(name, why);
    return std::nullopt;
  };
  if (!isRemoteDevice(name)) return failWith(QStringLiteral("not an ssh:// device"));
  QString rest = name.mid(kScheme.size());
  QString query;
  if (const qsizetype q = rest.indexOf(QLatin1Char('?')); q >= 0) {
    query = rest.mid(q + 1);
    rest = rest.left(q);
  }
  const qsizetype slash = rest.indexOf(QLatin1Char('/'));
  if (slash <= 0) return failWith(slash == 0 ? QStringLiteral("no HOST") : QStringLiteral("no DEVICE"));
  RemoteDevice d;
  d.host = rest.left(slash);
  d.device = rest.mid(slash + 1).toLower();
  // ssh would read a leading '-' as an option, and a host never holds spaces or quotes.
  static const QRegularExpression hostChars(QStringLiteral("^[A-Za-z0-9_.@:\\[\\]%+-]+$"));
  if (d.host.startsWith(QLatin1Char('-')) || !hostChars.match(d.host).hasMatch())
    return failWith(QStringLiteral("'%1' is not a host name").arg(d.host));
  if (d.device == QLatin1String("cuda")) d.device = QStringLiteral("cuda:0");
  static const QRegularExpression deviceForm(QStringLiteral("^(cpu|cuda:[0-9]+)$"));
  if (!deviceForm.match(d.device).hasMatch()) return failWith(QStringLiteral("unknown DEVICE '%1'").arg(d.device));
  if (!query.isEmpty()) {
    const QUrlQuery q(query);
    for (const auto& [key, value] : q.queryItems(QUrl::FullyDecoded)) {
      if (key != QLatin1String("python")) return failWith(QStringLiteral("unknown setting '%1'").arg(key));
      d.python = value;
    }
    if (d.python.isEmpty()) return failWith(QStringLiteral("python= names no Python"));
  }
  return d;
}

}  // namespace graft::core::remote
