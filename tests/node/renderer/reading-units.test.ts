import { describe, expect, it } from 'vitest';
import { chipLabel, chipsOf, chipText, questionOf, withFigure } from '../../../renderer/src/lib/reading';
import type { QuestionReading } from '../../../shared/service/reading';

// Metres per unit written out here (international mile and foot, nautical mile), not read from the app.
const MI = 1609.344;
const FT = 0.3048;
const NMI = 1852;
/** One decimal, without a trailing zero, as lengths are written. */
const one = (v: number) => String(Math.round(v * 10) / 10);

const reading = (relation: QuestionReading['relations'][number]): QuestionReading => ({
  subject: 'airports',
  source: 'OurAirports',
  filters: [],
  relations: [relation],
  text: '',
});
const relationChip = (r: QuestionReading, units?: Parameters<typeof chipsOf>[1]) => chipsOf(r, units).find((c) => c.part === 'relation')!;

describe('the reading chips speak the chosen units beside the figure asked', () => {
  const within100km = reading({ relation: 'within 100 km', reference: 'Genève, Switzerland', max_km: 100 });

  it('adds the length in miles after a distance asked in km, keeping the asked figure editable', () => {
    const chip = relationChip(within100km, { distance: 'mi', short: 'ft' });
    const miles = one(100_000 / MI);
    expect(chipLabel(chip)).toBe(`within 100 km (${miles} mi) of Genève, Switzerland`);
    expect(chip.pieces.filter((p) => typeof p !== 'string' && 'value' in p)).toEqual([{ value: 100 }]);
    // The note is shown, never asked: the question written back is the one the service reads.
    expect(chipText(chip)).toBe('within 100 km of Genève, Switzerland');
    expect(questionOf(withFigure(chipsOf(within100km, { distance: 'mi', short: 'ft' }), chip.key, 0, 120))).toBe('airports within 120 km of Genève, Switzerland');
  });

  it('says nothing more when the distance was asked in the chosen units', () => {
    expect(chipLabel(relationChip(within100km, { distance: 'km', short: 'm' }))).toBe('within 100 km of Genève, Switzerland');
    expect(chipLabel(relationChip(within100km))).toBe('within 100 km of Genève, Switzerland');
    // Half a kilometre is in the chosen metric units too: no "(500 m)" after it.
    const half = reading({ relation: 'within 0.5 km', reference: 'Lyon, France', max_km: 0.5 });
    expect(chipLabel(relationChip(half, { distance: 'km', short: 'm' }))).toBe('within 0.5 km of Lyon, France');
  });

  it("replaces the service's km figure after another unit with the chosen units, or drops it when those are the asked ones", () => {
    const km = 300 * (MI / 1000);
    const miles = reading({ relation: `within 300 miles (${Math.round(km)} km)`, reference: 'Denver, United States', max_km: km, said: '300 miles' });
    expect(chipLabel(relationChip(miles, { distance: 'mi', short: 'ft' }))).toBe('within 300 miles of Denver, United States');
    expect(chipLabel(relationChip(miles, { distance: 'km', short: 'm' }))).toBe(`within 300 miles (${Math.round(km)} km) of Denver, United States`);
    expect(chipLabel(relationChip(miles, { distance: 'nmi', short: 'm' }))).toBe(`within 300 miles (${Math.round((km * 1000) / NMI)} nmi) of Denver, United States`);
    expect(questionOf(chipsOf(miles, { distance: 'nmi', short: 'm' }))).toBe('airports within 300 miles of Denver, United States');
  });

  it('notes both ends of a range, and short lengths in feet', () => {
    const range = reading({ relation: 'between 1 km and 2 km', reference: 'Lyon, France', min_km: 1, max_km: 2 });
    const [lo, hi] = [one(1000 / MI), one(2000 / MI)];
    expect(chipLabel(relationChip(range, { distance: 'mi', short: 'ft' }))).toBe(`between 1 km (${lo} mi) and 2 km (${hi} mi) of Lyon, France`);
    // Below a tenth of a mile a length reads in feet, above it in miles (the house formatter's rule).
    const near = reading({ relation: 'within 100 m', reference: 'Lyon, France', max_km: 0.1 });
    expect(chipLabel(relationChip(near, { distance: 'mi', short: 'ft' }))).toBe(`within 100 m (${Math.round(100 / FT)} ft) of Lyon, France`);
    const farther = reading({ relation: 'within 500 m', reference: 'Lyon, France', max_km: 0.5 });
    expect(chipLabel(relationChip(farther, { distance: 'mi', short: 'ft' }))).toBe(`within 500 m (${one(500 / MI)} mi) of Lyon, France`);
    const more = reading({ relation: 'more than 100 km', reference: 'Lyon, France', min_km: 100 });
    expect(chipLabel(relationChip(more, { distance: 'nmi', short: 'm' }))).toBe(`more than 100 km (${one(100_000 / NMI)} nmi) of Lyon, France`);
  });
});
