import type { FastifyInstance } from 'fastify';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../../core/logger';

// Structural copy of the local service's plugin interface (electron/local-service/plugin.ts):
// same names and shapes, so the import can point at that module once both exist side by side.

export type Database = BetterSqlite3.Database;

export interface ServiceContext {
  dataDir: string;
  db: Database;
  logger: Logger;
  clock: () => Date;
  baseUrl(): string;
  searchBaseUrl(): string;
}

export interface LocalServicePlugin {
  name: string;
  registerBase?(app: FastifyInstance, ctx: ServiceContext): void | Promise<void>;
  registerSearch?(app: FastifyInstance, ctx: ServiceContext): void | Promise<void>;
  close?(): void | Promise<void>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route skips the host's API-key check. */
    auth?: boolean;
  }
}
