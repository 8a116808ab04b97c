# net_connect.py PORT ABSTRACT_NAME [HOST_IP]: tries every way back to the
# host's network: the host's 127.0.0.1 listener, its abstract unix socket,
# and the host's own address. Prints one "name: result" line each.
import socket, sys

port, abstract = int(sys.argv[1]), sys.argv[2]
targets = [('tcp-loopback', socket.AF_INET, ('127.0.0.1', port)),
           ('abstract-unix', socket.AF_UNIX, '\0' + abstract)]
if len(sys.argv) > 3:
    targets.append(('tcp-host-ip', socket.AF_INET, (sys.argv[3], port)))
for name, family, addr in targets:
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(addr)
        print(name + ': CONNECTED')
        try:
            s.sendall(b'ESCAPED\n')
        except OSError:
            pass    # the listener may already have closed its end
    except OSError as e:
        print('%s: refused (%s)' % (name, e.__class__.__name__))
    finally:
        s.close()
