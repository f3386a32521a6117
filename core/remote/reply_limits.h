#pragma once
// How much a host may send: a host is untrusted input, so every buffer that holds what it says is
// bounded, and a size it announces is checked before anything is allocated for it.
#include <QtCore/QJsonObject>
#include <QtCore/QtGlobal>

namespace graft::core::remote {

// One JSON header line (a per-node profile of a large program is a few MB).
inline constexpr qint64 kMaxHeaderLine = qint64(64) << 20;
// The tail of the host's stderr kept for error messages.
inline constexpr qint64 kStderrKept = qint64(64) << 10;
// A reply's payload when the request carries no values back (hello, a model check, a profile, shapes).
inline constexpr qint64 kMaxControlPayload = qint64(1) << 20;
// A reply's values (outputs, every node's values), whatever the machine has.
inline constexpr qint64 kMaxValuePayload = qint64(16) << 30;

// The largest payload a reply to `request` may announce: kMaxControlPayload unless the request
// asks for values, else kMaxValuePayload or this machine's available memory, the smaller.
qint64 replyLimit(const QJsonObject& request);

}  // namespace graft::core::remote
