import { describe, expect, it } from 'vitest';
import { responseItems } from '../../../shared/service/items';

describe('items of a response', () => {
  const a = { type: 'Feature', id: 'a' };
  const b = { type: 'Feature', id: 'b' };

  it('reads each kind from where the spec puts its items, in order', () => {
    expect(responseItems('compute', { results: { features: [a, b] }, answer: {} })).toEqual([a, b]);
    expect(responseItems('stream', { isSuccess: true, data: { geojson: { features: [b, a] } } })).toEqual([b, a]);
    expect(responseItems('imagery', { isSuccess: true, data: [a] })).toEqual([a]);
  });

  it('finds none in a body of another shape, and never reads another kind\'s place', () => {
    expect(responseItems('compute', { data: [a] })).toEqual([]);
    expect(responseItems('stream', { data: [a] })).toEqual([]);
    expect(responseItems('imagery', { isSuccess: false })).toEqual([]);
    expect(responseItems('compute', null)).toEqual([]);
    expect(responseItems('compute', { results: { features: 'x' } })).toEqual([]);
    expect(responseItems('stream', { data: [{ geojson: { features: [a] } }] })).toEqual([]);
  });
});
