import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it, parsed (headers, text, HTML). */
export interface ReceivedMail {
  parsed: ParsedMail;
  /** The envelope's recipients. */
  to: string[];
  /** Whether the client had upgraded the session with STARTTLS. */
  secure: boolean;
}

export interface TestSmtpServer {
  /** `SMTP_URL` for the service (the test server's certificate is self-signed). */
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Stops listening: clients then fail to connect (an SMTP outage). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/**
 * A real SMTP server process for tests (`smtp-server`, the package nodemailer's authors keep): it offers
 * STARTTLS with its built-in certificate, takes any sender and recipient, and keeps what it was given.
 */
export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let server: SMTPServer | undefined;
  let port = 0;
  const listen = async () => {
    server = new SMTPServer({
      authOptional: true,
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            received.push({
              parsed,
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              secure: session.secure,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    port = (listening.server.address() as AddressInfo).port;
  };
  await listen();
  return {
    get url() {
      return `smtp://127.0.0.1:${port}?tls.rejectUnauthorized=false`;
    },
    get port() {
      return port;
    },
    received,
    async stop() {
      const stopping = server;
      server = undefined;
      if (stopping) await new Promise<void>((resolve) => stopping.close(() => resolve()));
    },
    start: listen,
  };
}
