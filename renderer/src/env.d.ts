/// <reference types="vite/client" />

declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}

interface Window {
  /** Present only inside the Electron shell (see electron/preload). */
  fieldlens?: {
    invoke(method: string, input: unknown): Promise<unknown>;
    on(event: string, cb: (payload: unknown) => void): () => void;
  };
}
