/**
 * Method and event names alone, with no zod: the Electron preload imports only this file
 * for its allowlist. contract.ts checks at compile time that these lists match the schemas.
 */
export const METHOD_NAMES = [
  'app.info',
  'connection.active',
  'profiles.list',
  'profiles.save',
  'profiles.delete',
  'profiles.select',
  'keys.set',
  'keys.delete',
  'keys.status',
  'keys.test',
  'export.chooseDestination',
  'export.start',
  'export.cancel',
  'compute.run',
  'compute.cancel',
  'stream.run',
  'stream.cancel',
  'imagery.search',
  'imagery.cancel',
  'service.health',
  'history.list',
  'history.get',
  'history.thread',
  'history.rerun',
  'history.delete',
  'cache.stats',
  'cache.vacuum',
  'media.get',
  'photos.status',
  'photos.setFolders',
  'settings.get',
  'settings.save',
] as const;
export const EVENT_NAMES = ['connection.changed', 'export.progress', 'connectivity.changed'] as const;
