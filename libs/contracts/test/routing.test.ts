import { describe, expect, it } from 'vitest';
import { RECURRENT_LINK_CREATED, routingKeyOf } from '../src/index';

describe('routingKeyOf', () => {
  const linkCreated = (recurrence: unknown) => JSON.stringify({ type: 'link.created', data: { recurrence } });

  it('puts recurrent links apart from one-off ones', () => {
    expect(routingKeyOf('link.created', linkCreated({ type: 'DYNAMIC' }))).toBe(RECURRENT_LINK_CREATED);
    expect(routingKeyOf('link.created', linkCreated(null))).toBe('link.created.one-off');
  });

  it('is not misled by a label that spells out a one-off body', () => {
    const body = JSON.stringify({
      type: 'link.created',
      data: { label: '"recurrence":null', recurrence: { type: 'DYNAMIC' } },
    });
    expect(body).toContain('recurrence');
    expect(routingKeyOf('link.created', body)).toBe(RECURRENT_LINK_CREATED);
  });

  it('keeps the type of every other event, and of a body it cannot read', () => {
    expect(routingKeyOf('link.paid', linkCreated({ type: 'STATIC' }))).toBe('link.paid');
    expect(routingKeyOf('link.created', 'not json')).toBe('link.created');
  });
});
