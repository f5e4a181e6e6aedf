import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageryResponseSuccess } from '../../../shared/service/imagery';
import { StreamResponseSuccess } from '../../../shared/service/stream';
import { byteRange } from '../../../electron/local-service/imagery';
import { mp4Duration } from '../../../electron/local-service/imagery/video';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { startHarness, type Harness } from './harness';

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

/** A minimal MP4: ftyp, a media data box, then moov with a version-0 mvhd (timescale, duration). */
function tinyMp4(timescale: number, duration: number, payload = 4096): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(timescale, 12);
  mvhd.writeUInt32BE(duration, 16);
  return Buffer.concat([
    box('ftyp', Buffer.from('isom\0\0\0\0isomavc1', 'latin1')),
    box('mdat', Buffer.alloc(payload, 7)),
    box('moov', box('mvhd', mvhd)),
  ]);
}

describe('videos with a sidecar position', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fl-imagery-video-'));
    writeFileSync(join(dir, 'ride.mp4'), tinyMp4(1000, 12_500));
    writeFileSync(
      join(dir, 'ride.json'),
      JSON.stringify({ latitude: 59.3293, longitude: 18.0686, direction: 90, date: '2023-05-17T08:30:00+02:00', description: 'Tram ride', keywords: ['tram'], owner: 'Field team' }),
    );
    writeFileSync(join(dir, 'pan.mov'), tinyMp4(600, 1200));
    writeFileSync(join(dir, 'pan.mov.json'), JSON.stringify({ latitude: 59.33, longitude: 18.07, duration: 3.5, projection: 'equirectangular', keywords: ['tram'] }));
    writeFileSync(join(dir, 'orphan.mp4'), tinyMp4(1000, 1000));
    writeGeotaggedJpeg(join(dir, 'still.jpg'), { width: 16, height: 12, latitude: 59.3294, longitude: 18.0687, keywords: ['tram'], takenAt: '2023:05:17 09:00:00' });
    h = await startHarness({ photoDirs: [dir] });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads MP4 durations from the movie header', async () => {
    expect(await mp4Duration(join(dir, 'ride.mp4'))).toBe(12.5);
  });

  it('lists videos in /v1/stream with their video fields and no still image', async () => {
    const res = await h.stream({ query: 'tram' });
    const body = StreamResponseSuccess.parse(res.json);
    const byKind = Object.fromEntries(body.data.geojson.features.map((f) => [String(f.properties.description ?? f.properties.is_video), f]));
    const ride = byKind['Tram ride']!;
    expect(ride.properties).toMatchObject({
      is_video: true,
      video_id: ride.id,
      duration: 12.5,
      image_url: null,
      date: '2023-05-17T08:30:00+02:00',
      year: '2023',
      month: '05',
      owner: 'Field team',
      compass: 'East (E)',
      feature_name: 'tram',
      interactive: false,
      address: 'Stockholm, Sweden',
    });
    const pan = body.data.geojson.features.find((f) => f.properties.duration === 3.5)!;
    expect(pan.properties.interactive).toBe(true);
    expect(pan.properties.is_video).toBe(true);
    const still = body.data.geojson.features.find((f) => f.properties.is_video === false)!;
    expect(still.properties.video_url).toBeNull();
    expect(still.properties.image_url).not.toBeNull();

    const whole = await h.media(ride.properties.video_url!);
    expect(whole.status).toBe(200);
    expect(whole.type).toBe('video/mp4');
    expect(whole.body.equals(readFileSync(join(dir, 'ride.mp4')))).toBe(true);
    const u = new URL(ride.properties.video_url!);
    const part = await h.base.inject({ method: 'GET', url: u.pathname + u.search, headers: { range: 'bytes=8-15' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 8-15/${whole.body.length}`);
    expect(part.rawPayload.equals(whole.body.subarray(8, 16))).toBe(true);
    const thumb = await h.media(`${u.origin}${u.pathname}/thumb${u.search}`);
    expect(thumb.status).toBe(404);
  });

  it('keeps videos out of /search, whose records need a still image', async () => {
    const body = ImageryResponseSuccess.parse((await h.searchReq({ query: 'tram' })).json);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]!.address).toBe('Stockholm, Sweden');
  });

  it('skips a video without a sidecar and picks it up once one appears', async () => {
    const catalog = h.plugin.catalog()!;
    expect((await catalog.status()).skipped).toEqual([
      { path: join(dir, 'orphan.mp4'), reason: 'video without a sidecar position (orphan.mp4.json or orphan.json)' },
    ]);
    writeFileSync(join(dir, 'orphan.json'), JSON.stringify({ latitude: 59.5, longitude: 18.5, keywords: ['ferry'] }));
    await catalog.scan();
    expect((await catalog.status()).skipped).toEqual([]);
    const found = StreamResponseSuccess.parse((await h.stream({ query: 'ferry' })).json);
    expect(found.data.geojson.features.map((f) => f.properties.duration)).toEqual([1]);
    unlinkSync(join(dir, 'orphan.json'));
    await catalog.scan();
    expect((await catalog.status()).skipped).toHaveLength(1);
    expect(StreamResponseSuccess.parse((await h.stream({ query: 'ferry' })).json).data.geojson.features).toEqual([]);
  });

  it('gives the reason a sidecar is rejected', async () => {
    writeFileSync(join(dir, 'bad.mp4'), tinyMp4(1000, 1000));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ latitude: 123, longitude: 0 }));
    await h.plugin.catalog()!.scan();
    const reason = (await h.plugin.catalog()!.status()).skipped.find((s) => s.path.endsWith('bad.mp4'))?.reason;
    expect(reason).toMatch(/^sidecar bad\.json: latitude /);
  });
});

describe('byteRange', () => {
  it('parses single ranges and rejects unsatisfiable ones', () => {
    expect(byteRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(byteRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=95-200', 100)).toEqual({ start: 95, end: 99 });
    expect(byteRange('bytes=100-', 100)).toBe('invalid');
    expect(byteRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(byteRange(undefined, 100)).toBeNull();
  });
});
