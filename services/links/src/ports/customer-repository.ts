export interface CustomerRepository {
  /** The customer with that document number at that merchant, created on first confirmation. */
  findOrCreateByDocument(request: { merchantId: string; documentNumber: string; now: Date }): Promise<number>;
  /** The customer's e-mail, when the customer has one (for the account page). */
  emailOf(merchantId: string, customerId: number): Promise<string | null | undefined>;
}
