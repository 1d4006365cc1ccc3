import { type ApiOperation, apiOperations, OPERATION_PERMISSIONS } from '@payrail/contracts';
import { describe, expect, it } from 'vitest';
import { operationResolver, operationsWithoutPermission } from '../../src/adapters/http/authorization';

describe('the permission table against the document', () => {
  it('has a row for every merchant operation and none for an operation that does not exist', () => {
    expect(operationsWithoutPermission(apiOperations)).toEqual([]);
    const merchantIds = new Set(
      apiOperations.filter((op) => op.security === 'apiToken').map((op) => op.operationId),
    );
    expect(Object.keys(OPERATION_PERMISSIONS).filter((id) => !merchantIds.has(id))).toEqual([]);
  });

  it('names a merchant operation added without a row (the gateway then refuses to start)', () => {
    const added = { ...apiOperations[0], operationId: 'refundEverything' } as ApiOperation;
    expect(operationsWithoutPermission([...apiOperations, added])).toEqual(['refundEverything']);
  });

  it('reads are reads and writes are writes', () => {
    for (const operation of apiOperations.filter((op) => op.security === 'apiToken'))
      expect(OPERATION_PERMISSIONS[operation.operationId]?.access, operation.operationId).toBe(
        operation.method === 'get' ? 'read' : 'write',
      );
  });
});

describe('which operation a request is', () => {
  const resolve = operationResolver(apiOperations);
  it.each([
    ['POST', '/api/subscriptions/cancel-all', 'cancelSubscription'],
    ['GET', '/api/subscriptions/17', 'getSubscription'],
    ['GET', '/api/subscriptions/installments', 'listPendingInstallments'],
    ['PATCH', '/api/subscriptions/installments/bulk', 'bulkModifyInstallments'],
    ['PATCH', '/api/subscriptions/installments/3', 'modifyInstallment'],
    ['HEAD', '/api/payrequests/2', 'getPaymentLink'],
    ['DELETE', '/api/api-tokens/0f0e0d0c-0b0a-4998-8776-655443322110', 'deleteApiToken'],
    ['PUT', '/admin/merchants/0f0e0d0c-0b0a-4998-8776-655443322110/dunning-policy', 'setDunningPolicy'],
  ])('%s %s is %s', (method, path, operationId) => {
    expect(resolve(method, path)?.operationId).toBe(operationId);
  });

  it('a path that is no operation is none (its 404 or 405 follows)', () => {
    expect(resolve('GET', '/api/nothing')).toBeUndefined();
    expect(resolve('PUT', '/api/saleitems/add')).toBeUndefined();
    expect(resolve('GET', '/api/subscriptions/1/2')).toBeUndefined();
  });
});
