import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';

/** Photos with known EXIF and what the service must say about each. */
export const KNOWN = [
  {
    file: 'lisbon-tram.jpg', lat: 38.7223, lon: -9.1393, direction: 45, takenAt: '2024:03:05 10:00:00',
    keywords: ['tram', 'street'], description: 'Yellow tram on a hill',
    city: 'Lisbon', country: 'Portugal', regionId: '620', compass: 'North-East (NE)', date: 'March 5, 2024',
    isoDate: '2024-03-05T10:00:00', year: 2024, month: '03', interactive: false,
  },
  {
    file: 'zurich-lake.jpg', lat: 47.3769, lon: 8.5417, direction: 292.5, takenAt: '2019:11:30 16:45:10',
    keywords: ['lake'], description: 'Lakeside promenade',
    city: 'Zürich', country: 'Switzerland', regionId: '756', compass: 'West-North-West (WNW)', date: 'November 30, 2019',
    isoDate: '2019-11-30T16:45:10', year: 2019, month: '11', interactive: false,
  },
  {
    file: 'buenos-aires.jpg', lat: -34.6037, lon: -58.3816, direction: 180, takenAt: '2021:01:01 00:30:00',
    keywords: ['obelisk'], description: 'Avenue at night',
    city: 'Buenos Aires', country: 'Argentina', regionId: '032', compass: 'South (S)', date: 'January 1, 2021',
    isoDate: '2021-01-01T00:30:00', year: 2021, month: '01', interactive: false,
  },
  {
    file: 'seoul-market.jpg', lat: 37.5665, lon: 126.978, direction: 112.5, takenAt: '2022:07:15 12:00:00',
    keywords: ['market'], description: 'Covered market entrance',
    city: 'Seoul', country: 'South Korea', regionId: '410', compass: 'East-South-East (ESE)', date: 'July 15, 2022',
    isoDate: '2022-07-15T12:00:00', year: 2022, month: '07', interactive: false,
  },
  {
    file: 'cairo-pano.jpg', lat: 30.0444, lon: 31.2357, direction: 0, takenAt: '2020:02:29 09:00:00',
    keywords: ['square'], description: 'Panorama of a square', width: 128, height: 64,
    city: 'Cairo', country: 'Egypt', regionId: '818', compass: 'North (N)', date: 'February 29, 2020',
    isoDate: '2020-02-29T09:00:00', year: 2020, month: '02', interactive: true,
  },
] as const;

export type Known = (typeof KNOWN)[number];

/** A temp folder with the known photos, one photo without GPS and one file that is not a photo. */
export function writeKnownFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fl-imagery-photos-'));
  KNOWN.forEach((k, i) =>
    writeGeotaggedJpeg(join(dir, k.file), {
      width: 'width' in k ? k.width : 48,
      height: 'height' in k ? k.height : 32,
      latitude: k.lat,
      longitude: k.lon,
      direction: k.direction,
      takenAt: k.takenAt,
      description: k.description,
      keywords: [...k.keywords],
      make: 'TestCam',
      seed: i + 1,
    }),
  );
  writeGeotaggedJpeg(join(dir, 'no-gps.jpg'), { width: 32, height: 24, takenAt: '2020:01:01 00:00:00', make: 'TestCam' });
  writeFileSync(join(dir, 'notes.txt'), 'not a photo');
  return dir;
}

/** `count` small photos tagged "survey" around a few cities, dated over several years. */
export function writeSurveyFolder(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'fl-imagery-survey-'));
  const centres = [
    [2.35, 48.86],
    [13.4, 52.52],
    [-0.12, 51.5],
    [12.5, 41.9],
  ] as const;
  for (let i = 0; i < count; i++) {
    const [lon, lat] = centres[i % centres.length]!;
    const day = String((i % 28) + 1).padStart(2, '0');
    writeGeotaggedJpeg(join(dir, `survey-${String(i).padStart(4, '0')}.jpg`), {
      width: 16,
      height: 12,
      latitude: lat + ((i * 37) % 100) / 5000,
      longitude: lon + ((i * 53) % 100) / 5000,
      direction: (i * 22.5) % 360,
      // Some photos share a capture time so paging must fall back to the id order.
      takenAt: `${2018 + (i % 5)}:0${(i % 9) + 1}:${day} 12:00:00`,
      keywords: ['survey'],
      make: 'SurveyCam',
      seed: i,
      quality: 50,
    });
  }
  return dir;
}
