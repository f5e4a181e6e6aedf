import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  socket: Socket;
  /** The response, once its head and the body it declares have arrived (or the socket closed). */
  response: Promise<RawResponse>;
  /** Writes body bytes; resolves once the socket took them (or failed: the server may have closed it). */
  write(bytes: Buffer | string): Promise<boolean>;
}

/**
 * An HTTP/1.1 request on a plain socket: the head is sent at once and the body as the caller
 * writes it, so a test can declare a length it never sends, or send a body slowly.
 */
export function rawRequest(url: string, opts: { method?: string; path: string; headers: Record<string, string> }): RawRequest {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  socket.on('error', () => {});
  const head =
    `${opts.method ?? 'POST'} ${opts.path} HTTP/1.1\r\nhost: ${u.host}\r\n` +
    Object.entries(opts.headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  socket.write(head);
  const response = new Promise<RawResponse>((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let parsed: { status: number; headers: Record<string, string>; bodyAt: number; length: number } | null = null;
    const done = () => {
      if (!parsed) return false;
      if (buf.length - parsed.bodyAt < parsed.length) return false;
      resolve({ status: parsed.status, headers: parsed.headers, body: buf.subarray(parsed.bodyAt, parsed.bodyAt + parsed.length).toString('utf8') });
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!parsed) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const l of lines.slice(1)) {
          const i = l.indexOf(':');
          headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        parsed = { status: Number(lines[0]!.split(' ')[1]), headers, bodyAt: end + 4, length: Number(headers['content-length'] ?? 0) };
      }
      done();
    });
    socket.on('close', () => {
      if (!done()) reject(new Error(parsed ? 'connection closed before the whole response' : 'connection closed without a response'));
    });
  });
  response.catch(() => {});
  return {
    socket,
    response,
    write: (bytes) => new Promise((ok) => (socket.destroyed ? ok(false) : socket.write(bytes, (e) => ok(!e)))),
  };
}

/** A multipart/form-data body: its fields, then its files (name and bytes each). */
export function multipartBody(boundary: string, fields: Record<string, string>, files: { field?: string; name: string; bytes: Buffer }[]): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${f.field ?? 'files'}"; filename="${f.name}"\r\ncontent-type: application/octet-stream\r\n\r\n`));
    parts.push(f.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}
