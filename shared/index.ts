export * from './service/index';
export * from './rpc/index';
