#!/usr/bin/env bash
# Sourced by tests/gpu/run.sh: a throwaway sshd on 127.0.0.1 (its own host and user keys, as
# tests/loopback_sshd does for the Qt Tests), so that the remote-device steps reach this machine's
# GPU through ssh://gpu-loop/cuda:0 exactly as a desktop reaches a GPU server. Sets
# GRAFT_SSH_COMMAND; returns 1 (and the steps are skipped) where sshd or ssh is missing.
loopback_ssh() {
  local d=$1
  command -v ssh > /dev/null && [ -x /usr/sbin/sshd ] || { echo "no ssh client or /usr/sbin/sshd"; return 1; }
  mkdir -p "$d" && chmod 700 "$d"
  ssh-keygen -q -t ed25519 -N "" -f "$d/host_key" && ssh-keygen -q -t ed25519 -N "" -f "$d/user_key" || return 1
  cp "$d/user_key.pub" "$d/authorized_keys"
  [ "$(id -u)" = 0 ] && mkdir -p /run/sshd
  local port=$((20000 + $$ % 40000)) user
  user=$(id -un)
  cat > "$d/sshd_config" << CFG
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_key
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
CFG
  cat > "$d/ssh_config" << CFG
Host gpu-loop
  HostName 127.0.0.1
  Port $port
  User $user
  IdentityFile $d/user_key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile $d/known_hosts
  BatchMode yes
  LogLevel ERROR
CFG
  /usr/sbin/sshd -f "$d/sshd_config" -E "$d/sshd.log" || { cat "$d/sshd.log"; return 1; }
  export GRAFT_SSH_COMMAND="ssh -F $d/ssh_config"
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    $GRAFT_SSH_COMMAND gpu-loop true 2> /dev/null && return 0
    sleep 0.5
  done
  echo "sshd did not answer: $(tail -c 300 "$d/sshd.log")"
  return 1
}

loopback_ssh_stop() { [ -f "$1/sshd.pid" ] && kill "$(cat "$1/sshd.pid")" 2> /dev/null; }
