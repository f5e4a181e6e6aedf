import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { computeResponse, imageryResponse, streamResponse } from '../cache/fixtures';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Multipart requests: text fields (repeated ones as arrays) and files. */
  fields?: Record<string, string | string[]>;
  files?: { field: string; filename: string; mimetype: string; content: string }[];
}

export type Behaviour = (req: FastifyRequest, reply: FastifyReply, n: number) => unknown;

/**
 * A small stand-in for the query service: answers spec-shaped bodies by default, and each test
 * can replace the behaviour of a path. Every request is recorded.
 */
export class FakeService {
  readonly app: FastifyInstance;
  readonly received: Received[] = [];
  behaviours = new Map<string, Behaviour>();
  port = 0;

  constructor() {
    this.app = Fastify({ logger: false });
    void this.app.register(multipart, { limits: { fileSize: 10 * 1024 * 1024 } });
    // Bodies are kept as text first so malformed client JSON would show, then parsed.
    this.app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch (e) {
        done(e as Error, undefined);
      }
    });
    const handle = (path: string, fallback: Behaviour) => async (req: FastifyRequest, reply: FastifyReply) => {
      const rec: Received = { path, headers: req.headers, body: req.body };
      if (req.isMultipart()) {
        rec.fields = {};
        rec.files = [];
        for await (const part of req.parts()) {
          if (part.type === 'file')
            rec.files.push({ field: part.fieldname, filename: part.filename, mimetype: part.mimetype, content: (await part.toBuffer()).toString() });
          else {
            const prev = rec.fields[part.fieldname];
            const v = String(part.value);
            rec.fields[part.fieldname] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
          }
        }
      }
      this.received.push(rec);
      const n = this.received.filter((r) => r.path === path).length;
      return (this.behaviours.get(path) ?? fallback)(req, reply, n);
    };
    this.app.post('/v1/compute', handle('/v1/compute', () => computeResponse(5, 9).body));
    this.app.post('/v1/stream', handle('/v1/stream', () => streamResponse(4, 2).body));
    this.app.post('/search', handle('/search', (req) => {
      const page = (req.body as { page?: number } | undefined)?.page ?? 1;
      return imageryResponse(3, page, 3).body;
    }));
    this.app.get('/media/:name', handle('/media', (_req, reply) => reply.type('image/jpeg').send(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))));
    this.app.get('/', handle('/', () => ({ service: 'fake' })));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    await this.app.listen({ host: '127.0.0.1', port });
    const addr = this.app.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    return this;
  }

  async stop(): Promise<void> {
    this.app.server.closeAllConnections?.();
    await this.app.close();
  }

  count(path: string): number {
    return this.received.filter((r) => r.path === path).length;
  }
}
