import { describe, expect, it } from 'vitest';
import {
  diffText,
  errorText,
  formatCaptureDate,
  formatLonLat,
  formatBytes,
  formatDistance,
  formatMatched,
  warningParts,
  warningText,
} from '../../../renderer/src/lib/format';

describe('result formatters', () => {
  it('writes distances in metres below a kilometre and kilometres above', () => {
    expect(formatDistance(0)).toBe('0 m');
    expect(formatDistance(849.6)).toBe('850 m');
    expect(formatDistance(1000)).toBe('1 km');
    expect(formatDistance(12_345)).toBe('12.3 km');
    expect(formatDistance(1_204_400)).toBe('1,204 km');
  });

  it('leaves unknown or invalid distances blank', () => {
    expect(formatDistance(null)).toBe('');
    expect(formatDistance(undefined)).toBe('');
    expect(formatDistance(Number.NaN)).toBe('');
    expect(formatDistance(-1)).toBe('');
  });

  it('says how many of the matches are shown', () => {
    expect(formatMatched(1234, 100)).toBe('100 of 1,234 matches shown');
    expect(formatMatched(3, 3)).toBe('3 results');
    expect(formatMatched(1, 1)).toBe('1 result');
    expect(formatMatched(0, 0)).toBe('0 results');
  });

  it('reads warnings of any shape', () => {
    expect(warningText('Paris is ambiguous')).toBe('Paris is ambiguous');
    expect(warningText({ message: 'ignored "the"' })).toBe('ignored "the"');
    expect(warningText({ code: 'AMBIGUOUS', detail: 'Paris, France chosen' })).toBe('AMBIGUOUS: Paris, France chosen');
    expect(warningText({ field: 'limit', value: 3 })).toBe('{"field":"limit","value":3}');
    expect(warningText(42)).toBe('42');
    expect(warningText(null)).toBe('null');
  });

  it('puts a service code aside from the sentence a person reads', () => {
    expect(warningParts('ambiguous_place: "Paris" matched 11 places')).toEqual({ text: '"Paris" matched 11 places', code: 'ambiguous_place' });
    expect(warningParts({ code: 'bad_rows', message: '2 row(s) could not be read' })).toEqual({ text: '2 row(s) could not be read', code: 'bad_rows' });
    expect(warningParts('Offline: gone')).toEqual({ text: 'Offline: gone', code: null });
    expect(errorText({ code: 'HTTP', message: 'x', details: { status: 400, serverMessage: 'unknown_place: no place called "Atlantis"' } })).toBe('No place called "Atlantis"');
  });

  // Issue 15 changed this: the person reads the sentence that matters; the code is in the details.
  it('gives the sentence that matters, without code or status in front', () => {
    expect(errorText({ code: 'OFFLINE', message: 'The service is unreachable' })).toBe('The service is unreachable');
    expect(errorText({ code: 'HTTP', message: 'The service answered HTTP 502: Bad gateway', details: { status: 502, serverMessage: 'Bad gateway' } })).toBe('Bad gateway');
    expect(errorText({ code: 'VALIDATION', message: 'limit', details: ['x'] })).toBe('limit');
  });

  it('shortens ISO capture times and keeps display dates as sent', () => {
    expect(formatCaptureDate('2024-05-01T10:00:00Z')).toBe('2024-05-01 10:00');
    expect(formatCaptureDate('March 5, 2024')).toBe('March 5, 2024');
    expect(formatCaptureDate(null)).toBeNull();
  });

  it('writes positions with hemispheres, latitude first', () => {
    expect(formatLonLat([2.2945, 48.8584])).toBe('48.8584° N, 2.2945° E');
    expect(formatLonLat([-43.1822, -22.9711])).toBe('22.9711° S, 43.1822° W');
  });

  it('sizes and rerun differences', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2048)).toBe('2 KB');
    expect(formatBytes(5 * 1024 * 1024 + 100_000)).toBe('5.1 MB');
    expect(diffText({ added: ['a', 'b'], removed: [], changed: ['c'], unchanged: 7 })).toBe(
      '2 added, 0 removed, 1 changed, 7 unchanged',
    );
  });
});
