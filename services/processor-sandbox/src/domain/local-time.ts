// Both processors are Paraguayan: "the same day" (rollback, reversal) and the dates they print are
// calendar dates in Asunción, whatever the server's zone.
export const PROCESSOR_TIME_ZONE = 'America/Asuncion';

const formatter = new Intl.DateTimeFormat('en-CA', {
  timeZone: PROCESSOR_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function parts(instant: Date): Record<string, string> {
  return Object.fromEntries(formatter.formatToParts(instant).map((part) => [part.type, part.value]));
}

/** `YYYY-MM-DD HH:mm:ss` in Asunción. */
export function localDateTime(instant: Date): string {
  const p = parts(instant);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

export function localDate(instant: Date): string {
  return localDateTime(instant).slice(0, 10);
}

export function sameLocalDay(a: Date, b: Date): boolean {
  return localDate(a) === localDate(b);
}

/** The instant of an Asunción wall-clock time `YYYY-MM-DD HH:mm:ss`; undefined when malformed. */
export function instantOfLocal(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0] = match
    .slice(1)
    .map((v) => Number(v ?? 0));
  const asIfUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  // The zone's offset at that moment: the difference between the wall clock it shows and UTC.
  const shown = parts(new Date(asIfUtc));
  const shownAsUtc = Date.UTC(
    Number(shown.year),
    Number(shown.month) - 1,
    Number(shown.day),
    Number(shown.hour),
    Number(shown.minute),
    Number(shown.second),
  );
  const instant = new Date(asIfUtc - (shownAsUtc - asIfUtc));
  return Number.isNaN(instant.getTime()) ? undefined : instant;
}
