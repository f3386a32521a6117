#include "core/remote/host_text.h"

namespace graft::core::remote {

namespace {
bool isControl(char16_t c) { return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029; }
}  // namespace

QString hostText(const QString& text, qsizetype limit) {
  QString out;
  out.reserve(std::min(text.size(), limit) + 8);
  for (const QChar ch : text) {
    if (out.size() >= limit) {
      out += QChar(0x2026);
      break;
    }
    const char16_t c = ch.unicode();
    if (!isControl(c)) out += ch;
    else if (c <= 0xff) out += QStringLiteral("\\x%1").arg(int(c), 2, 16, QLatin1Char('0'));
    else out += QStringLiteral("\\u%1").arg(int(c), 4, 16, QLatin1Char('0'));
  }
  return out;
}

QString hostText(const QByteArray& utf8, qsizetype limit) {
  // Only the bytes that can reach the limit are decoded: a host's megabytes are never copied whole.
  return hostText(QString::fromUtf8(utf8.left(limit * 4)), limit);
}

}  // namespace graft::core::remote
