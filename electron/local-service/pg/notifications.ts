import pg from 'pg';

export interface ChannelListener {
  close(): Promise<void>;
}

export interface ListenOptions {
  url: string;
  channel: string;
  /** A notification arrived (its payload), or the connection came back and some may have been missed (null). */
  onNotify: (payload: string | null) => void;
  onError?: (e: unknown) => void;
  /** First wait before connecting again after a lost connection (doubles up to 30 s). */
  retryMs?: number;
}

/**
 * LISTEN on a channel over a connection of its own (a pooled one would be handed to queries and
 * hear nothing), connecting again after it is lost. Once back it reports a null payload, since
 * what was sent meanwhile never arrives.
 */
export function listenToChannel(opts: ListenOptions): ChannelListener {
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let wait = opts.retryMs ?? 1000;
  let connectedBefore = false;

  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, wait);
    wait = Math.min(wait * 2, 30_000);
  };

  const connect = async () => {
    const c = new pg.Client({ connectionString: opts.url, application_name: 'fieldlens-listen' });
    client = c;
    c.on('notification', (n) => {
      if (n.channel === opts.channel) opts.onNotify(n.payload ?? null);
    });
    const lost = (e?: unknown) => {
      if (client !== c) return;
      client = null;
      c.end().catch(() => {});
      if (closed) return;
      opts.onError?.(e ?? new Error('the notification connection ended'));
      retry();
    };
    c.on('error', lost);
    c.on('end', () => lost());
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(opts.channel)}`);
      wait = opts.retryMs ?? 1000;
      if (connectedBefore) opts.onNotify(null);
      connectedBefore = true;
    } catch (e) {
      lost(e);
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
