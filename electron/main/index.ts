import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, session, shell } from 'electron';
import { createAppServices, type AppServices } from '../root/app-services';
import { createLogger } from '../ground/logger';
import { err } from '../../shared/rpc/errors';
import { dialogExtensionsOf } from '../../shared/formats';

// One window per user session: a second launch focuses the first.
if (!app.requestSingleInstanceLock()) app.quit();

const here = dirname(fileURLToPath(import.meta.url));
let services: AppServices | undefined;
let win: BrowserWindow | undefined;

const rendererUrl = process.env['ELECTRON_RENDERER_URL'];
const rendererFile = join(here, '../renderer/index.html');

/** Only our own renderer may call the router. */
function isTrustedSender(frameUrl: string | undefined): boolean {
  if (!frameUrl) return false;
  if (rendererUrl) return frameUrl.startsWith(rendererUrl);
  return frameUrl.startsWith('file://') && decodeURI(new URL(frameUrl).pathname).endsWith('/renderer/index.html');
}

function createWindow(): BrowserWindow {
  const w = new BrowserWindow({
    width: 1280,
    height: 800,
    title: 'Fieldlens',
    show: false,
    webPreferences: {
      // Reviewed: the preload exposes only invoke/on, through contextBridge, with a method and event allowlist.
      preload: join(here, '../preload/index.cjs'), // eng-disable PRELOAD_JS_CHECK
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      // A middle click would otherwise open a link in a new window past the window-open handler.
      disableBlinkFeatures: 'Auxclick',
    },
  });
  w.once('ready-to-show', () => w.show());
  w.webContents.on('will-navigate', (e) => e.preventDefault());
  w.webContents.on('will-redirect', (e) => e.preventDefault());
  w.webContents.on('will-attach-webview', (e) => e.preventDefault());
  w.webContents.setWindowOpenHandler(({ url }) => {
    // External links (data sources, attributions) open in the user's browser, never in-app.
    if (/^https?:\/\//.test(url)) void shell.openExternal(url); // eng-disable OPEN_EXTERNAL_JS_CHECK (http and https only)
    return { action: 'deny' };
  });
  if (rendererUrl) void w.loadURL(rendererUrl);
  else void w.loadFile(rendererFile);
  return w;
}

app.on('second-instance', () => {
  if (win) {
    if (win.isMinimized()) win.restore();
    win.focus();
  }
});

app.whenReady().then(async () => {
  // The app asks for no browser permission (camera, location, notifications...): refuse them all.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  const dataDir = app.getPath('userData');
  // Set once the services exist: the key values they know are redacted from every log line.
  let secretValues: () => Iterable<string> = () => [];
  const logger = createLogger({ file: join(dataDir, 'logs', 'main.log'), secrets: () => secretValues() });
  services = await createAppServices({
    dataDir,
    logger,
    shell: 'electron',
    version: app.getVersion(),
    clock: () => new Date(),
    env: process.env,
    async chooseSavePath({ defaultName, extension }) {
      const options = {
        title: 'Export',
        defaultPath: join(app.getPath('documents'), defaultName),
        filters: [{ name: extension.toUpperCase(), extensions: [extension] }],
      };
      const r = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
      return r.canceled || !r.filePath ? null : r.filePath;
    },
    async pickLayerFile() {
      const options = {
        title: 'Add a data layer',
        properties: ['openFile' as const],
        filters: [
          { name: 'Data layers', extensions: dialogExtensionsOf('layer') },
          { name: 'All files', extensions: ['*'] },
        ],
      };
      const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
  });
  secretValues = services.secretValues;
  const { router, bus } = services;

  ipcMain.handle('fieldlens:rpc', (event, method: unknown, input: unknown) => {
    if (!isTrustedSender(event.senderFrame?.url)) {
      logger.warn('Rejected RPC from an untrusted frame', { url: event.senderFrame?.url });
      return err('AUTH', 'Caller is not the Fieldlens window');
    }
    // The router answers with an envelope; this catch keeps that true for whatever it cannot foresee.
    return router.dispatch(method, input, { transport: 'electron' }).catch((e: unknown) => {
      logger.error('RPC dispatch failed', e);
      return err('INTERNAL', 'Internal error');
    });
  });
  bus.subscribe((name, payload) => win?.webContents.send('fieldlens:event', name, payload));

  win = createWindow();
});

app.on('window-all-closed', () => app.quit());
app.on('will-quit', () => {
  void services?.close();
});
