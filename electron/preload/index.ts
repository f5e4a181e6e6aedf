import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { EVENT_NAMES, METHOD_NAMES } from '../../shared/rpc/names';

// Only names cross into the preload; inputs are validated by the router in the main process.
const methods = new Set<string>(METHOD_NAMES);
const events = new Set<string>(EVENT_NAMES);

contextBridge.exposeInMainWorld('fieldlens', {
  invoke(method: string, input: unknown) {
    if (!methods.has(method))
      return Promise.resolve({ ok: false, error: { code: 'NOT_FOUND', message: `Unknown method: ${method}` } });
    return ipcRenderer.invoke('fieldlens:rpc', method, input);
  },
  on(event: string, cb: (payload: unknown) => void) {
    if (!events.has(event)) throw new Error(`Unknown event: ${event}`);
    const listener = (_e: IpcRendererEvent, name: string, payload: unknown) => {
      if (name === event) cb(payload);
    };
    ipcRenderer.on('fieldlens:event', listener);
    return () => {
      ipcRenderer.removeListener('fieldlens:event', listener);
    };
  },
});
