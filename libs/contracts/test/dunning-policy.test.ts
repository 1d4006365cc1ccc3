import { describe, expect, it } from 'vitest';
import { DEFAULT_DUNNING_POLICY, dunningPolicyRequest } from '../src/index';

describe('the default dunning policy', () => {
  it('is one an operator could set: retried on days 1, 3 and 5, never cancelled', () => {
    expect(dunningPolicyRequest.parse(DEFAULT_DUNNING_POLICY)).toEqual({
      retryOffsetDays: [1, 3, 5],
      cancelAfterFailedInstallments: null,
    });
  });
});
