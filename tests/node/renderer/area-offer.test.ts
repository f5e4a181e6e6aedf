import { describe, expect, it } from 'vitest';
import { withoutAreaPhrase } from '../../../renderer/src/lib/reading';

const REFUSED = (word: string) => `The question could not be read: could not read the area after "${word}"; write a box as "bbox west,south,east,north".`;

describe('the offer to run without a phrase read as an area', () => {
  it('leaves out the phrase that holds the word, from its opening word to the next part of the question', () => {
    expect(withoutAreaPhrase('airports with a long runway', REFUSED('long'))).toEqual({ phrase: 'with a long runway', rest: 'airports' });
    expect(withoutAreaPhrase('airports with a long runway within 50 km of Lyon', REFUSED('long'))).toEqual({ phrase: 'with a long runway', rest: 'airports within 50 km of Lyon' });
    // No opening word near it: the word alone.
    expect(withoutAreaPhrase('long airports near Lyon', REFUSED('long'))).toEqual({ phrase: 'long', rest: 'airports near Lyon' });
  });

  it('offers nothing for another error, a word not in the question, or nothing left to ask', () => {
    expect(withoutAreaPhrase('airports with a long runway', 'Network error')).toBeNull();
    expect(withoutAreaPhrase('airports near Lyon', REFUSED('lat'))).toBeNull();
    expect(withoutAreaPhrase('with a long runway', REFUSED('long'))).toBeNull();
  });
});
