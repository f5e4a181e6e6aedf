import { open, type FileHandle } from 'node:fs/promises';

/**
 * Reads a file front to back in large blocks and hands out exact byte runs, without reading
 * it whole. `exact(n)` returns null at a clean end of file and throws TruncatedError when the
 * file stops inside a run.
 */
export class TruncatedError extends Error {}

export class FileBytes {
  private buf = Buffer.alloc(0);
  private pos = 0;
  private eof = false;
  consumed = 0;

  private constructor(
    private readonly fh: FileHandle,
    private readonly block: number,
  ) {}

  static async open(file: string, block = 4 << 20): Promise<FileBytes> {
    return new FileBytes(await open(file, 'r'), block);
  }

  private async fill(n: number): Promise<void> {
    while (this.buf.length - this.pos < n && !this.eof) {
      const chunk = Buffer.allocUnsafe(Math.max(this.block, n));
      const { bytesRead } = await this.fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) this.eof = true;
      this.buf = Buffer.concat([this.buf.subarray(this.pos), chunk.subarray(0, bytesRead)]);
      this.pos = 0;
    }
  }

  async exact(n: number): Promise<Buffer | null> {
    await this.fill(n);
    const left = this.buf.length - this.pos;
    if (left === 0 && this.eof) return null;
    if (left < n) throw new TruncatedError(`file ends ${left} bytes into a ${n}-byte record`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    this.consumed += n;
    return out;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
