#!/usr/bin/env python3
"""retcon-relay keeps forwarding when a new client's first datagram and a server reply to an
existing client are ready at once (docs/cli.md#retcon-relay).

The relay is stopped (SIGSTOP) while both arrive, so its next poll sees them together. The new
client (127.0.0.2) sorts before the existing one (127.0.0.3) in the relay's table: a relay that
paired poll results with table entries by position read the new client's upstream socket, which
nothing had been sent to yet, and blocked there for good, holding every datagram.
  relay_new_client.py RETCON_RELAY
"""
import os
import signal
import socket
import subprocess
import sys

GIVE_UP_S = 5.0  # a bound for the hang this test is about, not a performance threshold


def udp(host):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, 0))
    s.settimeout(GIVE_UP_S)
    return s


def expect(sock, payload, what):
    try:
        data, source = sock.recvfrom(2048)
    except socket.timeout:
        sys.exit(f"FAIL: {what}: nothing within {GIVE_UP_S} s (the relay is stuck)")
    if data != payload:
        sys.exit(f"FAIL: {what}: got {data!r}, expected {payload!r}")
    return source


def main():
    server = udp("127.0.0.1")
    relay = subprocess.Popen(
        [sys.argv[1], "--listen", "0", "--server", "127.0.0.1:%d" % server.getsockname()[1], "--duration", "30"],
        stdout=subprocess.PIPE, text=True)
    try:
        line = relay.stdout.readline()
        port = int(line.rsplit(" ", 1)[1])
        relay_addr = ("127.0.0.1", port)
        a = udp("127.0.0.3")
        a.sendto(b"a1", relay_addr)
        a_upstream = expect(server, b"a1", "client A's first datagram at the server")

        os.kill(relay.pid, signal.SIGSTOP)
        b = udp("127.0.0.2")
        b.sendto(b"b1", relay_addr)  # a new client...
        server.sendto(b"to a", a_upstream)  # ...and a reply for the existing one, ready together
        os.kill(relay.pid, signal.SIGCONT)

        b_upstream = expect(server, b"b1", "client B's first datagram at the server")
        expect(a, b"to a", "the server's reply at client A")
        server.sendto(b"to b", b_upstream)
        expect(b, b"to b", "the server's reply at client B")
        print("relay_new_client: PASS")
    finally:
        relay.kill()
        relay.wait()


if __name__ == "__main__":
    main()
