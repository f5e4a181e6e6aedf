import { open, type FileHandle } from 'node:fs/promises';

const FLUSH_AT = 1 << 20; // characters

/** Buffered text output to a new file: memory stays at about one chunk whatever the export size. */
export class TextSink {
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;

  private constructor(private readonly fh: FileHandle) {}

  static async create(path: string): Promise<TextSink> {
    return new TextSink(await open(path, 'wx'));
  }

  /** Returns a promise only when a chunk went to disk, so callers can skip the await otherwise. */
  write(text: string): Promise<void> | undefined {
    this.parts.push(text);
    this.pending += text.length;
    return this.pending >= FLUSH_AT ? this.flush() : undefined;
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const data = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.pending = 0;
    await this.fh.write(data);
    this.bytes += data.length;
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.fh.close();
    }
  }

  /** Closes without flushing, for a file that is about to be deleted. */
  async abandon(): Promise<void> {
    this.parts = [];
    await this.fh.close().catch(() => undefined);
  }
}
