/**
 * Writes the bundled sample imagery: street-like scenes drawn by code, with real EXIF (GPS,
 * GPSImgDirection, DateTimeOriginal, ImageDescription, Make) and XMP keywords, at places in a
 * few real cities. Every image says "SAMPLE IMAGERY" on it and in its description.
 *
 *   npx tsx scripts/make-sample-photos.ts [outDir]   (default resources/sample-photos)
 */
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeGeotaggedJpeg, type PhotoSpec } from '../electron/local-service/imagery/photo-writer';

const MAKE = 'Fieldlens sample imagery';

const SAMPLES: (Omit<PhotoSpec, 'width' | 'height' | 'make'> & { file: string; place: string; width?: number; height?: number })[] = [
  { file: 'paris-seine.jpg', place: 'PARIS', latitude: 48.8584, longitude: 2.2945, direction: 45, takenAt: '2024:03:05 10:15:00', description: 'Sample imagery: riverside street by the Seine, Paris', keywords: ['sample', 'river', 'street'] },
  { file: 'paris-montmartre.jpg', place: 'PARIS', latitude: 48.8867, longitude: 2.3431, direction: 157.5, takenAt: '2023:09:09 17:40:00', description: 'Sample imagery: hillside street in Montmartre, Paris', keywords: ['sample', 'street', 'hill'] },
  { file: 'berlin-mitte.jpg', place: 'BERLIN', latitude: 52.5163, longitude: 13.3777, direction: 90, takenAt: '2023:07:14 12:00:00', description: 'Sample imagery: avenue in Mitte, Berlin', keywords: ['sample', 'avenue'] },
  { file: 'tokyo-shibuya.jpg', place: 'TOKYO', latitude: 35.6595, longitude: 139.7005, direction: 270, takenAt: '2022:11:02 19:30:00', description: 'Sample imagery: crossing in Shibuya, Tokyo', keywords: ['sample', 'crossing', 'street'] },
  { file: 'new-york-midtown.jpg', place: 'NEW YORK', latitude: 40.758, longitude: -73.9855, direction: 0, takenAt: '2024:06:21 08:05:00', description: 'Sample imagery: Midtown block, New York', keywords: ['sample', 'street'] },
  { file: 'nairobi-cbd.jpg', place: 'NAIROBI', latitude: -1.2864, longitude: 36.8172, direction: 202.5, takenAt: '2023:01:15 09:45:00', description: 'Sample imagery: central business district, Nairobi', keywords: ['sample', 'street'] },
  { file: 'sydney-harbour.jpg', place: 'SYDNEY', latitude: -33.8568, longitude: 151.2153, direction: 67.5, takenAt: '2022:12:31 21:00:00', description: 'Sample imagery: harbour front, Sydney', keywords: ['sample', 'harbour', 'waterfront'] },
  { file: 'rio-copacabana.jpg', place: 'RIO DE JANEIRO', latitude: -22.9711, longitude: -43.1822, direction: 315, takenAt: '2021:08:08 15:20:00', description: 'Sample imagery: beach road in Copacabana, Rio de Janeiro', keywords: ['sample', 'beach', 'road'] },
  { file: 'cape-town-centre.jpg', place: 'CAPE TOWN', latitude: -33.9249, longitude: 18.4241, direction: 180, takenAt: '2023:10:10 11:11:00', description: 'Sample imagery: city centre street, Cape Town', keywords: ['sample', 'street'] },
  { file: 'reykjavik-360.jpg', place: 'REYKJAVIK', width: 1024, height: 512, latitude: 64.1466, longitude: -21.9426, direction: 225, takenAt: '2024:02:02 13:00:00', description: 'Sample imagery: 360 degree panorama, Reykjavik', keywords: ['sample', 'panorama', '360'], projection: 'equirectangular' },
];

const out = resolve(process.argv[2] ?? 'resources/sample-photos');
mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.endsWith('.jpg')) unlinkSync(join(out, f));
let total = 0;
SAMPLES.forEach((s, i) => {
  const path = join(out, s.file);
  const { file: _file, place, ...spec } = s;
  writeGeotaggedJpeg(path, { width: 640, height: 480, make: MAKE, label: `SAMPLE IMAGERY\n${place}`, seed: 101 + i, quality: 60, ...spec });
  total += statSync(path).size;
});
console.log(`${SAMPLES.length} sample photos, ${(total / 1024).toFixed(0)} KiB, in ${out}`);
