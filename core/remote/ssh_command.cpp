#include "core/remote/ssh_command.h"

#include <QtCore/QProcessEnvironment>

namespace graft::core::remote {

namespace {

// Run by the host's Python with -c. It answers "graft-agent have" (cached) or "graft-agent
// need" (then reads "<size>\n" and the agent's bytes, checks their SHA-256 and caches them
// atomically), then runs the agent in this process. No single quote: it travels in one.
QString bootstrap(const QString& sha) {
  return QStringLiteral(
             "import sys,os,hashlib\n"
             "h=\"%1\";i=sys.stdin.buffer;o=sys.stdout.buffer\n"
             "d=os.path.join(os.environ.get(\"XDG_CACHE_HOME\") or "
             "os.path.join(os.path.expanduser(\"~\"),\".cache\"),\"graft\")\n"
             "p=os.path.join(d,\"agent-\"+h+\".py\")\n"
             "if not os.path.isfile(p):\n"
             " o.write(b\"graft-agent need\\n\");o.flush();n=int(i.readline());b=i.read(n)\n"
             " if hashlib.sha256(b).hexdigest()!=h:sys.exit(\"graft-agent: the agent arrived damaged\")\n"
             " os.makedirs(d,exist_ok=True);t=p+\".%d\"%os.getpid();f=open(t,\"wb\");f.write(b);f.close();os.replace(t,"
             "p)\n"
             "else:\n"
             " o.write(b\"graft-agent have\\n\");o.flush()\n"
             "g={\"__name__\":\"graft_agent\"};exec(compile(open(p,\"rb\").read(),p,\"exec\"),g);sys.exit(g[\"main\"]()"
             ")\n")
      .arg(sha);
}

}  // namespace

QStringList splitShellWords(const QString& text) {
  QStringList words;
  QString word;
  bool inWord = false;
  enum { Plain, Single, Double } state = Plain;
  for (qsizetype i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (state == Single) {
      if (c == QLatin1Char('\'')) state = Plain;
      else word += c;
      continue;
    }
    if (state == Double) {
      if (c == QLatin1Char('"')) state = Plain;
      else if (c == QLatin1Char('\\') && i + 1 < text.size() && QStringLiteral("\"\\$`").contains(text[i + 1]))
        word += text[++i];
      else word += c;
      continue;
    }
    if (c.isSpace()) {
      if (inWord) words << word;
      word.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == QLatin1Char('\'')) state = Single;
    else if (c == QLatin1Char('"')) state = Double;
    else if (c == QLatin1Char('\\') && i + 1 < text.size()) word += text[++i];
    else word += c;
  }
  if (inWord) words << word;
  return words;
}

QString shellQuote(const QString& text) {
  QString quoted = text;
  quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString remoteCommand(const RemoteDevice& device, const QString& agentSha256) {
  const QString run = QStringLiteral(" -c ") + shellQuote(bootstrap(agentSha256));
  if (!device.python.isEmpty()) return QStringLiteral("exec ") + shellQuote(device.python) + run;
  // The first python3 on the PATH that imports torch (POSIX sh: the host's login shell runs it).
  return QStringLiteral(
             "P=; IFS=:; for d in $PATH; do if [ -x \"$d/python3\" ] && \"$d/python3\" -c 'import torch' 2>/dev/null; "
             "then P=\"$d/python3\"; break; fi; done; unset IFS; "
             "if [ -z \"$P\" ]; then echo \"no python3 on the PATH ($PATH) imports torch\" >&2; exit %1; fi; exec "
             "\"$P\"")
             .arg(kNoTorchExit) +
         run;
}

SshCommand sshCommand(const RemoteDevice& device, const QString& agentSha256) {
  SshCommand c;
  const QString custom = QProcessEnvironment::systemEnvironment().value(QStringLiteral("GRAFT_SSH_COMMAND")).trimmed();
  QStringList words = custom.isEmpty() ? QStringList{QStringLiteral("ssh")} : splitShellWords(custom);
  if (words.isEmpty()) words = {QStringLiteral("ssh")};
  c.program = words.takeFirst();
  c.arguments = words;
  c.arguments << device.host << remoteCommand(device, agentSha256);
  return c;
}

QString SshCommand::describe() const {
  QStringList shown{program};
  shown << arguments.mid(0, arguments.size() - 1);
  return shown.join(QLatin1Char(' '));
}

}  // namespace graft::core::remote
