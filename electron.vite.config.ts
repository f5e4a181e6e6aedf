import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'electron/main/index.ts'),
          // Plain-Node entry points built beside the Electron main: the browser host.
          host: resolve(__dirname, 'electron/host/cli.ts'),
          // The bundled local service run alone (npm run service).
          service: resolve(__dirname, 'electron/local-service/cli.ts'),
          // The local service's upload parsing worker thread (found beside the bundle at run time).
          'upload-parse-worker': resolve(__dirname, 'electron/local-service/upload/parse-worker.ts'),
        },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot load ES modules: emit one CommonJS file.
      rollupOptions: {
        input: { index: resolve(__dirname, 'electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [vue()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: { index: resolve(__dirname, 'renderer/index.html') } },
    },
  },
});
