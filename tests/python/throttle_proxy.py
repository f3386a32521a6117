"""A slow link for the remote-device tests: ssh's ProxyCommand that copies stdin to HOST:PORT and
the answers back to stdout, each way at RATE bytes per second (as a congested or distant link).

    python3 throttle_proxy.py HOST PORT RATE
"""
import socket
import sys
import threading
import time


def pump(read, write, done, rate):
    chunk = max(1, rate // 20)  # twenty sends a second
    while True:
        data = read(chunk)
        if not data:
            break
        write(data)
        time.sleep(len(data) / rate)
    done()


def main():
    host, port, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    link = socket.create_connection((host, port))

    def to_stdout(data):
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()

    up = threading.Thread(target=pump, daemon=True,
                          args=(sys.stdin.buffer.raw.read, link.sendall, lambda: link.shutdown(socket.SHUT_WR), rate))
    up.start()
    pump(link.recv, to_stdout, lambda: None, rate)


if __name__ == "__main__":
    main()
