import type { Page } from '@playwright/test';

/**
 * One RPC call from inside the page, over its own WebSocket to the host (the page's cookie
 * carries the token). For test setup only; the app itself goes through its stores.
 */
export async function rpcCall<T = unknown>(page: Page, method: string, input: unknown): Promise<T> {
  const result = await rpcResult(page, method, input);
  if (!result.ok) throw new Error(`${method} failed: ${result.error?.code} ${result.error?.message}`);
  return result.value as T;
}

/** One RPC call's whole envelope, for a test that expects it to fail. */
export async function rpcResult(page: Page, method: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
  return page.evaluate(
    ({ method, input }) =>
      new Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>((resolve, reject) => {
        const ws = new WebSocket(`ws://${location.host}/rpc`);
        ws.addEventListener('open', () => ws.send(JSON.stringify({ id: 1, method, input })));
        ws.addEventListener('message', (ev) => {
          const msg = JSON.parse(String(ev.data)) as { id?: number; result?: { ok: boolean } };
          if (msg.id !== 1) return;
          ws.close();
          resolve(msg.result as { ok: boolean });
        });
        ws.addEventListener('error', () => reject(new Error('RPC socket failed')));
      }),
    { method, input },
  );
}
