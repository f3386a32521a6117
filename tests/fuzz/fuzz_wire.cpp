// The agent protocol as Graft reads a host's reply (core/remote: agent_connection, wire_values,
// reply_limits, host_text): a JSON header line, then header["bytes"] raw bytes, whose value trees
// ("outputs", each node's "values") point into that payload. The host is the attacker here: any
// offset, size, shape, dtype or nesting must end in an error, never a crash or an allocation the
// payload does not pay for. Seeds: tests/python/fake_host.py --write-seeds (tests/fuzz/make_corpus.sh).
#include "fuzz_support.h"

#include "core/remote/host_text.h"
#include "core/remote/reply_limits.h"
#include "core/remote/wire_values.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

using namespace graft;

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const QByteArray stream = QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
  const qsizetype nl = stream.indexOf('\n');
  if (nl < 0 || nl > core::remote::kMaxHeaderLine) return 0;
  fuzz::asJob([&] {
    const QJsonDocument doc = QJsonDocument::fromJson(stream.left(nl));
    if (!doc.isObject()) return;
    const QJsonObject header = doc.object();
    (void)core::remote::hostText(header.value(QStringLiteral("message")).toString());
    // As AgentConnection::request: the announced size is checked against what a run can bring
    // back, and only what arrived is read.
    const qint64 announced = header.value(QStringLiteral("bytes")).toInteger(-1);
    const QJsonObject run{{QStringLiteral("op"), QStringLiteral("run")}};
    if (announced < 0 || announced > core::remote::replyLimit(run) || announced > stream.size() - nl - 1) return;
    const QByteArray payload = stream.mid(nl + 1, announced);
    QString error;
    (void)core::remote::decodeValues(header.value(QStringLiteral("outputs")).toArray(), payload, &error);
    for (const auto node : header.value(QStringLiteral("nodes")).toArray())
      (void)core::remote::decodeValues(node.toObject().value(QStringLiteral("values")).toArray(), payload, &error);
  });
  return 0;
}
