/**
 * Method and event names alone, with no zod: the Electron preload imports only this file
 * for its allowlist. contract.ts checks at compile time that these lists match the schemas.
 */
export const METHOD_NAMES = [
  'app.info',
  'connection.active',
  'compute.run',
  'compute.cancel',
  'stream.run',
  'imagery.search',
  'history.list',
  'history.get',
  'history.thread',
  'history.rerun',
  'history.delete',
  'cache.stats',
  'cache.vacuum',
  'media.get',
] as const;
export const EVENT_NAMES = ['connection.changed', 'connectivity.changed'] as const;
