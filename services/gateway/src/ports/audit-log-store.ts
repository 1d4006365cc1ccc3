export interface AuditRecord {
  id: string;
  merchantId: string | null;
  at: Date;
  actor: { type: 'user' | 'token' | 'operator'; id: string | null; label: string | null };
  operationId: string;
  method: string;
  path: string;
  target: string | null;
  status: number;
  before: unknown;
  after: unknown;
  clientAddress: string | null;
}

export interface AuditLogFilter {
  operationId?: string;
  actorId?: string;
  target?: string;
  from?: Date;
  to?: Date;
  /** The `seq` of the last entry of the previous page: older ones follow. */
  before?: number;
  limit: number;
}

export interface AuditLogStore {
  append(record: AuditRecord): Promise<void>;
  /** Newest first; `nextCursor` the last entry's place when there are more. */
  list(
    merchantId: string,
    filter: AuditLogFilter,
  ): Promise<{ entries: AuditRecord[]; nextCursor: number | null }>;
  deleteOlderThan(at: Date): Promise<number>;
}
