import type Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Logger } from '../ground/logger';
import type { Catalog } from './catalog/catalog';
import type { DatabaseRouter } from './pg/replicas';
import type { PhotoDetections } from './query/sources/detections';

/** What every plugin of the local service gets: its data folder, database and addresses. */
export interface ServiceContext {
  dataDir: string;
  /**
   * The service's own SQLite database (WAL). A plugin applies its numbered migrations with
   * `applyMigrations(db, plugin.name, [...])` from ./store, in its register call.
   */
  db: Database.Database;
  /**
   * The PostgreSQL pool when the service runs on PostGIS (`--database URL`), shared by every
   * process of a team service: a plugin keeps its tables there instead of `db`, applying its
   * numbered migrations with `applyPgMigrations(pool, plugin.name, [...])` from ./pg/migrations.
   * The service owns it (it is closed after the plugins).
   */
  pool?: pg.Pool;
  /**
   * With `pool`: where reads that may lag a little go (streaming replicas, `--replica URL`), or
   * the pool itself without replicas. Writes stay on `pool`.
   */
  reads?: DatabaseRouter;
  logger: Logger;
  clock: () => Date;
  /** The open-data catalog the service answers from (cities, airports, countries); absent in plugin tests. */
  catalog?: Catalog;
  baseUrl(): string;
  searchBaseUrl(): string;
}

/**
 * Adds routes to the two hosts. Routes get the host's auth check (Bearer on the base host,
 * x-api-key on the search host) and problem+json errors; a route opts out of auth with
 * `config: { auth: false }`.
 */
export interface LocalServicePlugin {
  name: string;
  registerBase?(app: FastifyInstance, ctx: ServiceContext): void | Promise<void>;
  registerSearch?(app: FastifyInstance, ctx: ServiceContext): void | Promise<void>;
  close?(): void | Promise<void>;
  /** Photos by what was seen in them, for questions ("photos showing cars near X"); null until opened or without a detector. */
  detections?(): PhotoDetections | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route needs no API key (health, media files). */
    auth?: boolean;
  }
}
