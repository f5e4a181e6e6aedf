import { existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import { parseCaptureTime, type ReadResult } from './exif';

/** Video files the catalog lists when a sidecar gives their position. */
export const VIDEO_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
};

export function videoMime(path: string): string | undefined {
  return VIDEO_TYPES[extname(path).toLowerCase()];
}

/** Sidecar files looked for, in order: "clip.mp4.json", then "clip.json". */
export function sidecarCandidates(videoPath: string): string[] {
  const dir = dirname(videoPath);
  return [`${videoPath}.json`, join(dir, `${basename(videoPath, extname(videoPath))}.json`)];
}

export function findSidecar(videoPath: string): string | undefined {
  return sidecarCandidates(videoPath).find((p) => existsSync(p));
}

/** The sidecar of a video: where it was taken and what it shows. */
export const VideoSidecar = z.object({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  /** Facing, degrees clockwise from north. */
  direction: z.number().optional(),
  /** Capture time: ISO 8601 ("2024-03-05T10:00:00", offset optional) or EXIF form. */
  date: z.string().optional(),
  description: z.string().optional(),
  keywords: z.array(z.string()).optional(),
  owner: z.string().optional(),
  source: z.string().optional(),
  /** Seconds; read from the file's mvhd box for MP4/MOV when absent. */
  duration: z.number().min(0).optional(),
  projection: z.literal('equirectangular').optional(),
});
export type VideoSidecar = z.infer<typeof VideoSidecar>;

/**
 * Duration of an MP4/QuickTime file from its movie header (moov/mvhd: timescale and duration).
 * No video library is bundled and only these two numbers are needed, so the boxes are walked here.
 */
export async function mp4Duration(path: string): Promise<number | null> {
  const fh = await open(path, 'r');
  try {
    const { size: fileSize } = await fh.stat();
    const head = Buffer.alloc(16);
    const findBox = async (start: number, end: number, type: string): Promise<{ body: number; end: number } | null> => {
      let pos = start;
      while (pos + 8 <= end) {
        const { bytesRead } = await fh.read(head, 0, 16, pos);
        if (bytesRead < 8) return null;
        let size = head.readUInt32BE(0);
        let headerLen = 8;
        if (size === 1) {
          if (bytesRead < 16) return null;
          size = Number(head.readBigUInt64BE(8));
          headerLen = 16;
        } else if (size === 0) size = end - pos;
        if (size < headerLen) return null;
        if (head.toString('latin1', 4, 8) === type) return { body: pos + headerLen, end: pos + size };
        pos += size;
      }
      return null;
    };
    const moov = await findBox(0, fileSize, 'moov');
    if (!moov) return null;
    const mvhd = await findBox(moov.body, moov.end, 'mvhd');
    if (!mvhd) return null;
    const b = Buffer.alloc(32);
    await fh.read(b, 0, 32, mvhd.body);
    const version = b[0];
    const [timescale, duration] =
      version === 1 ? [b.readUInt32BE(20), Number(b.readBigUInt64BE(24))] : [b.readUInt32BE(12), b.readUInt32BE(16)];
    return timescale > 0 ? duration / timescale : null;
  } finally {
    await fh.close();
  }
}

/** What the catalog keeps of a video: its sidecar's position and text, and its duration. */
export async function readVideo(
  path: string,
  sidecarPath: string | undefined,
): Promise<ReadResult & { duration?: number | null; owner?: string | null; source?: string | null }> {
  if (!sidecarPath)
    return { ok: false, reason: `video without a sidecar position (${basename(path)}.json or ${basename(path, extname(path))}.json)` };
  let side: VideoSidecar;
  try {
    const parsed = VideoSidecar.safeParse(JSON.parse(await readFile(sidecarPath, 'utf8')));
    if (!parsed.success)
      return { ok: false, reason: `sidecar ${basename(sidecarPath)}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}` };
    side = parsed.data;
  } catch (err) {
    return { ok: false, reason: `sidecar ${basename(sidecarPath)} is not JSON: ${(err as Error).message}` };
  }
  const duration =
    side.duration ?? (videoMime(path) === 'video/webm' ? null : await mp4Duration(path).catch(() => null));
  return {
    ok: true,
    meta: {
      lon: side.longitude,
      lat: side.latitude,
      direction: side.direction === undefined ? null : ((side.direction % 360) + 360) % 360,
      ...parseCaptureTime(side.date ?? null),
      description: side.description ?? null,
      keywords: side.keywords ?? [],
      make: side.source ?? null,
      artist: side.owner ?? null,
      width: null,
      height: null,
      interactive: side.projection === 'equirectangular',
    },
    duration,
  };
}
