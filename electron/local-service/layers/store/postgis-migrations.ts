/**
 * Numbered migrations of the layer registry on PostgreSQL (scope "layers", applied by
 * applyPgMigrations). As in SQLite, each layer's features are a table of their own
 * (`layer_features_<n>`, created at import), so removing a layer is one DROP TABLE.
 */
export const PG_LAYER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE layers (
     id SERIAL PRIMARY KEY,
     uid TEXT NOT NULL UNIQUE,
     name TEXT NOT NULL,
     source_file TEXT NOT NULL,
     format TEXT NOT NULL,
     licence TEXT,
     source_text TEXT,
     state TEXT NOT NULL CHECK (state IN ('importing', 'ready')),
     feature_count BIGINT NOT NULL DEFAULT 0,
     geometry_types JSONB NOT NULL DEFAULT '{}',
     min_lon DOUBLE PRECISION, min_lat DOUBLE PRECISION, max_lon DOUBLE PRECISION, max_lat DOUBLE PRECISION,
     size_bytes BIGINT NOT NULL DEFAULT 0,
     warnings JSONB NOT NULL DEFAULT '[]',
     created_at TEXT NOT NULL
   )`,
];
