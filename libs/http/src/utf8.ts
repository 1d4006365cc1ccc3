import type { FieldError } from './problem';

/**
 * JSON text is UTF-8 (RFC 8259 section 8.1). A body that is not is refused with 400, naming the fields
 * whose text is broken, rather than read with replacement characters (which would be stored as the
 * merchant's data) or passed on to fail later.
 */
export const NOT_UTF8 = 'must be valid UTF-8 text';

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');
const lenientKeepingBom = new TextDecoder('utf-8', { ignoreBOM: true });

export interface DecodedText {
  text: string;
  /**
   * Present when the bytes were not UTF-8: the character that stands in `text` for each byte that could
   * not be decoded (one the valid parts do not contain), so the JSON still parses and the broken values
   * can be found.
   */
  marker?: string;
}

const isContinuation = (byte: number | undefined) => byte !== undefined && byte >= 0x80 && byte <= 0xbf;
const within = (byte: number | undefined, low: number, high: number) =>
  byte !== undefined && byte >= low && byte <= high;

/**
 * The length of the well-formed UTF-8 sequence at `index` (Unicode, table 3-7), 0 when there is none:
 * no overlong forms, no surrogates, nothing above U+10FFFF.
 */
function sequenceLength(bytes: Uint8Array, index: number): number {
  const first = bytes[index] as number;
  const second = bytes[index + 1];
  if (first < 0x80) return 1;
  if (first >= 0xc2 && first <= 0xdf) return isContinuation(second) ? 2 : 0;
  const third = isContinuation(bytes[index + 2]);
  if (first === 0xe0) return within(second, 0xa0, 0xbf) && third ? 3 : 0;
  if (first === 0xed) return within(second, 0x80, 0x9f) && third ? 3 : 0;
  if (first >= 0xe1 && first <= 0xef) return isContinuation(second) && third ? 3 : 0;
  const fourth = isContinuation(bytes[index + 3]);
  if (first === 0xf0) return within(second, 0x90, 0xbf) && third && fourth ? 4 : 0;
  if (first >= 0xf1 && first <= 0xf3) return isContinuation(second) && third && fourth ? 4 : 0;
  if (first === 0xf4) return within(second, 0x80, 0x8f) && third && fourth ? 4 : 0;
  return 0;
}

/** Noncharacters (U+FDD0–U+FDEF): a marker is the first of them the valid text does not contain. */
function markerFor(valid: string): string {
  for (let code = 0xfdd0; code <= 0xfdef; code += 1) {
    const candidate = String.fromCharCode(code);
    if (!valid.includes(candidate)) return candidate;
  }
  // Text holding all 32 noncharacters: the replacement character, which then may mark too much.
  return '\ufffd';
}

/**
 * Decodes a body as UTF-8 (a leading byte-order mark dropped, as `TextDecoder` does). When the bytes are
 * not UTF-8, every byte that does not belong to a well-formed sequence becomes `marker`.
 */
export function decodeUtf8(bytes: Uint8Array): DecodedText {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    // Not UTF-8: decoded again below, piece by piece.
  }
  const pieces: Array<string | null> = [];
  let start = 0;
  let index = 0;
  const flush = (end: number) => {
    if (end > start) {
      const decoder = start === 0 ? lenient : lenientKeepingBom;
      pieces.push(decoder.decode(bytes.subarray(start, end)));
    }
  };
  while (index < bytes.length) {
    const length = sequenceLength(bytes, index);
    if (length > 0) {
      index += length;
      continue;
    }
    flush(index);
    pieces.push(null);
    index += 1;
    start = index;
  }
  flush(index);
  const marker = markerFor(pieces.filter((piece) => piece !== null).join(''));
  return { text: pieces.map((piece) => piece ?? marker).join(''), marker };
}

/**
 * The fields of a parsed body whose text holds `marker`: a value (`bankName`, `operations.0.custom_identifier`),
 * or a field's name (named with U+FFFD where its bytes were broken). Walked without recursion: a body may
 * nest deeper than the call stack.
 */
export function invalidTextPaths(body: unknown, marker: string): FieldError[] {
  interface Step {
    value: unknown;
    key?: string;
    parent?: Step;
  }
  const pathOf = (step: Step | undefined, last?: string): string => {
    const parts: string[] = last === undefined ? [] : [last];
    for (let at = step; at?.key !== undefined; at = at.parent) parts.push(at.key);
    return parts.reverse().join('.') || '(body)';
  };
  const found: FieldError[] = [];
  const pending: Step[] = [{ value: body }];
  while (pending.length > 0) {
    const step = pending.pop() as Step;
    const { value } = step;
    if (typeof value === 'string') {
      if (value.includes(marker)) found.push({ path: pathOf(step), message: NOT_UTF8 });
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1)
        pending.push({ value: value[index], key: String(index), parent: step });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value).reverse()) {
        if (key.includes(marker)) {
          const message = 'is a field name that is not valid UTF-8 text';
          found.push({ path: pathOf(step, key.replaceAll(marker, '\ufffd')), message });
        } else pending.push({ value: item, key, parent: step });
      }
    }
  }
  return found;
}
