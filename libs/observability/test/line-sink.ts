import { Writable } from 'node:stream';

/** A stream for `createLogger` that keeps each line it is given, for a test to read. */
export function lineSink(): { sink: Writable; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { sink, lines };
}
