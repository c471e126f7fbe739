import { SMTPServer } from 'smtp-server';

export interface Received {
  to: string[];
  body: string;
}

/** A real SMTP server on a loopback port that keeps what it receives. */
export async function startSmtp(port: number) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (c) => {
        body += c;
      });
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return { received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A message's text with quoted-printable soft breaks and escapes undone. */
export const plainText = (body: string) =>
  body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, h) => String.fromCharCode(Number.parseInt(h, 16)));
