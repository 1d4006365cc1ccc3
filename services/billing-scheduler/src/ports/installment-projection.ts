import type { IsoDate } from '@payrail/time';
import type { InstallmentState } from '../domain/due-installment';

export interface ProjectedInstallment {
  installmentId: number;
  subscriptionId: number;
  merchantId: string;
  number: number;
  paymentDate: IsoDate;
  dueOn: IsoDate;
  attempt: number;
  state: InstallmentState;
  firstAttemptOn: IsoDate | null;
  lastRunId: string | null;
  lastAttemptOn: IsoDate | null;
}

/** The projection of chargeable installments, bound to one transaction (a consumer's). */
export interface InstallmentProjection {
  /** The installment, locked until the transaction ends. */
  installmentForUpdate(installmentId: number): Promise<ProjectedInstallment | undefined>;
  /** The installments there are of these, locked in the order given, until the transaction ends. */
  installmentsForUpdate(installmentIds: number[]): Promise<ProjectedInstallment[]>;
  saveInstallment(installment: ProjectedInstallment): Promise<void>;
  /** As `saveInstallment` for each, in one go; an installment given twice ends as its last copy. */
  saveInstallments(installments: ProjectedInstallment[]): Promise<void>;
}
