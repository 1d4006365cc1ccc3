/** Reading the processors' JSON without trusting its shape: every field is checked where it is used. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function objectField(value: unknown, name: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const field = value[name];
  return isObject(field) ? field : undefined;
}

export function arrayField(value: unknown, name: string): unknown[] {
  if (!isObject(value)) return [];
  const field = value[name];
  return Array.isArray(field) ? field : [];
}

/** Strings as they are, integers in decimal (processors send ids both ways). */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** `MM/YY` (or `MM/YYYY`), as both processors show a card's expiry. */
export function parseExpiry(value: unknown): { expiryMonth: number; expiryYear: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{2})\/(\d{2}|\d{4})$/.exec(value.trim());
  if (!match) return undefined;
  const month = Number(match[1]);
  const year = Number(match[2]);
  if (month < 1 || month > 12) return undefined;
  return { expiryMonth: month, expiryYear: year < 100 ? 2000 + year : year };
}
