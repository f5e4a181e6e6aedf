import { describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../shared/rpc/client';
import { shortcutOf } from '../../../renderer/src/lib/shortcuts';
import { LAYER_COLOURS } from '../../../renderer/src/map/layerColours';
import { LAYERS } from '../../../renderer/src/map/layers';
import { keysText, PANELS, RUN_PANELS, type RunPanelId } from '../../../renderer/src/panels/registry';
import { RUN_STORES } from '../../../renderer/src/panels/runs';
import { useAskStore } from '../../../renderer/src/stores/ask';
import { useImageryStore } from '../../../renderer/src/stores/imagery';
import { useMapStore } from '../../../renderer/src/stores/map';
import { useStreetStore } from '../../../renderer/src/stores/street';
import { withStores } from './support/stores';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean }> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

/** A client whose runs never answer and whose other calls succeed; every call recorded. */
function hangingClient() {
  const calls: { method: string; input: unknown }[] = [];
  const client = {
    call: (method: string, input: unknown) => {
      calls.push({ method, input });
      return method.endsWith('.cancel') ? Promise.resolve({ ok: true, value: { cancelled: true } }) : new Promise(() => {});
    },
    on: () => () => {},
  } as unknown as RpcClient;
  return { client, calls };
}

// How each panel with a run starts one; typed by the registry, so a new run panel must be added here.
const START: Record<RunPanelId, () => void> = {
  ask: () => {
    const s = useAskStore();
    s.query = 'airports near Lyon';
    void s.run();
  },
  street: () => {
    const s = useStreetStore();
    s.query = 'bridges';
    void s.run();
  },
  imagery: () => {
    const s = useImageryStore();
    s.query = 'harbour';
    void s.search();
  },
};

describe('panels as data: every list the workspace keeps comes from the descriptors', () => {
  it('has distinct ids, labels and keys', () => {
    for (const field of [(p: (typeof PANELS)[number]) => p.id, (p: (typeof PANELS)[number]) => p.label, (p: (typeof PANELS)[number]) => p.keys.alt])
      expect(new Set(PANELS.map(field)).size).toBe(PANELS.length);
  });

  it('shows each panel with its own keys, and writes them as the tab announces them', () => {
    for (const p of PANELS) {
      expect(shortcutOf(key(p.keys.alt, { altKey: true })), p.id).toBe(p.id);
      if ('ctrl' in p.keys) {
        expect(shortcutOf(key(p.keys.ctrl, { ctrlKey: true })), p.id).toBe(p.id);
        expect(keysText(p)).toBe(`Control+${p.keys.ctrl.toUpperCase()}`);
      } else expect(keysText(p)).toBe(`Alt+${p.keys.alt}`);
    }
    // Ctrl+K stays the History search, whatever the panels' keys.
    expect(shortcutOf(key('k', { ctrlKey: true }))).toBe('search');
  });

  it('gives each panel with a layer a map layer, a colour and an empty collection in the map store', () => {
    const withLayer = PANELS.filter((p) => p.layer).map((p) => p.id);
    expect([...LAYERS]).toEqual(withLayer);
    expect(Object.keys(LAYER_COLOURS).sort()).toEqual([...withLayer].sort());
    for (const p of PANELS) if (p.layer) expect(LAYER_COLOURS[p.id]).toBe(p.layer.colour);
    const map = withStores(hangingClient().client, () => useMapStore());
    expect(Object.keys(map.collections).sort()).toEqual([...withLayer].sort());
    expect(Object.values(map.collections).every((c) => c === null)).toBe(true);
  });

  it("has a run store for each panel with a run, which Esc's list cancels by the descriptor's method", async () => {
    expect(Object.keys(RUN_STORES).sort()).toEqual(PANELS.filter((p) => p.run).map((p) => p.id).sort());
    expect([...RUN_PANELS].sort()).toEqual(Object.keys(RUN_STORES).sort());
    for (const id of RUN_PANELS) {
      const { client, calls } = hangingClient();
      const run = withStores(client, () => {
        START[id]();
        return RUN_STORES[id]();
      });
      expect(run.busy, id).toBe(true);
      await run.cancel();
      const started = calls.find((c) => !c.method.endsWith('.cancel') && typeof (c.input as { runId?: unknown }).runId === 'string');
      const runId = (started!.input as { runId: string }).runId;
      const descriptor = PANELS.find((p) => p.id === id)!;
      expect(calls.at(-1), id).toEqual({ method: descriptor.run!.cancelMethod, input: { runId } });
    }
  });
});
