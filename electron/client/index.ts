export * from './errors';
export * from './service-client';
export { createQueryHandlers, type QueryHandlerDeps } from './query-handlers';
