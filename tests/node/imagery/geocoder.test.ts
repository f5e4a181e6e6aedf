import { describe, expect, it } from 'vitest';
import { addressText, createDefaultGeocoder, normalizeRegionId, RegionTable } from '../../../electron/local-service/imagery/geocoder';
import { namedRegion, parseQuery } from '../../../electron/local-service/imagery/query';

const regions = new RegionTable();
const geocode = createDefaultGeocoder(regions);

describe('default geocoder', () => {
  it.each([
    [2.2945, 48.8584, 'Paris', 'France', '250'],
    [-73.9855, 40.758, 'New York City', 'United States', '840'],
    [151.2153, -33.8568, 'Sydney', 'Australia', '036'],
    [2.13, 48.8, 'Versailles', 'France', '250'],
  ])('names the city of %f,%f', (lon, lat, city, country, regionId) => {
    expect(geocode(lon, lat)).toMatchObject({ city, country, regionId });
  });

  it('names only the country far from any city, and nothing on the open sea', () => {
    const remote = geocode(-30, 40);
    expect(remote?.city).toBeUndefined();
    expect(remote?.country).toBe('Portugal');
    expect(geocode(-140, 0)).toBeNull();
    expect(addressText(null, -140, 0)).toBe('0.00000, -140.00000');
  });

  it('normalizes numeric region ids', () => {
    expect(normalizeRegionId('36')).toBe('036');
    expect(regions.get('36')?.name).toBe('Australia');
    expect(regions.get('999')).toBeUndefined();
  });
});

describe('query words', () => {
  it('drops function words and words for photos, keeps the written form', () => {
    expect(parseQuery('Photos of the Zürich lake').words).toEqual([
      { text: 'Zürich', folded: 'zurich' },
      { text: 'lake', folded: 'lake' },
    ]);
    expect(parseQuery(' * ').all).toBe(true);
  });

  it('finds the longest country name in a query', () => {
    expect(namedRegion(parseQuery('streets in South Africa'), regions)?.id).toBe('710');
    expect(namedRegion(parseQuery('streets in Cape Town'), regions)).toBeUndefined();
  });
});
