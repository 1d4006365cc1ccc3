/** An installment paid by a bank transfer, found again by the merchant's bank reference. */
export interface TransferSettlement {
  merchantId: string;
  reference: string;
  installmentId: number;
  subscriptionId: number;
  amount: string;
  settledAt: Date;
}

/** The installments bank transfers paid, by the merchant's bank reference: asking twice pays once. */
export interface TransferSettlementStore {
  /** The installment a bank reference of the merchant already paid, if any. */
  findTransferSettlement(merchantId: string, reference: string): Promise<TransferSettlement | undefined>;
  /** In the transaction that marks the installment paid. */
  recordTransferSettlement(settlement: TransferSettlement): Promise<void>;
}
