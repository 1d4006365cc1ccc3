export type ProcessorId = 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B';
export const PROCESSOR_A: ProcessorId = 'PARAGUAY.PROCESSOR_A';
export const PROCESSOR_B: ProcessorId = 'PARAGUAY.PROCESSOR_B';

/** `A`, `B` or the full processor id. */
export function parseProcessor(value: unknown): ProcessorId | undefined {
  if (value === 'A' || value === PROCESSOR_A) return PROCESSOR_A;
  if (value === 'B' || value === PROCESSOR_B) return PROCESSOR_B;
  return undefined;
}
