#pragma once
// What a host says (its stderr, a reply's message, its device name) is untrusted text: shown, never
// obeyed. Control characters (ESC, BEL, C1 controls, newlines) become "\x1b"-style escapes, so no
// host can move our cursor, retitle a terminal or forge a line of our own output.
#include <QtCore/QByteArray>
#include <QtCore/QString>

namespace graft::core::remote {

// `text` with every control character written as \xNN (\u0085-style above 0xff), at most
// `limit` characters of the result ("…" marks a cut).
QString hostText(const QString& text, qsizetype limit = 400);
QString hostText(const QByteArray& utf8, qsizetype limit = 400);

}  // namespace graft::core::remote
