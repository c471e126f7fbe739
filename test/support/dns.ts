import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import dnsPacket from 'dns-packet';

/**
 * A real DNS server on a loopback UDP port that answers TXT questions from a table the
 * test fills (a domain's owner publishing a record): the service asks it as it would ask
 * any resolver (DNS_SERVERS). A name with no record is NXDOMAIN.
 */
export async function startDns() {
  const records = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    const found = question?.type === 'TXT' ? records.get(question.name.toLowerCase()) : undefined;
    const answer = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (found ? 0 : 3),
      questions: query.questions,
      answers: (found ?? []).map((value) => ({
        type: 'TXT' as const,
        name: question!.name,
        ttl: 60,
        data: value,
      })),
    });
    socket.send(answer, peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    server: `127.0.0.1:${socket.address().port}`,
    /** Publishes a TXT record (in addition to any other at that name). */
    publish(name: string, value: string) {
      records.set(name.toLowerCase(), [...(records.get(name.toLowerCase()) ?? []), value]);
    },
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
}
