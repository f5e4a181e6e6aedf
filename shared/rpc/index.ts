export * from './errors';
export * from './contract';
export * from './client';
export * from './ws-protocol';
export * from './names';
