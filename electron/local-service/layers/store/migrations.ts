/**
 * Numbered migrations of the layer registry (scope "layers", applied by applyMigrations from
 * ../../store). Each layer's features and R*Tree are tables of their own, created at import
 * (see layer-store.ts), so removing a layer is two DROP TABLEs rather than a million DELETEs.
 */
export const LAYER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE layers (
     id INTEGER PRIMARY KEY,
     uid TEXT NOT NULL UNIQUE,
     name TEXT NOT NULL,
     source_file TEXT NOT NULL,
     format TEXT NOT NULL,
     licence TEXT,
     source_text TEXT,
     state TEXT NOT NULL CHECK (state IN ('importing', 'ready')),
     feature_count INTEGER NOT NULL DEFAULT 0,
     geometry_types TEXT NOT NULL DEFAULT '{}',
     min_lon REAL, min_lat REAL, max_lon REAL, max_lat REAL,
     size_bytes INTEGER NOT NULL DEFAULT 0,
     warnings TEXT NOT NULL DEFAULT '[]',
     created_at TEXT NOT NULL
   );`,
  // The layer's columns and their values (bounded), for the question vocabulary.
  `ALTER TABLE layers ADD COLUMN summary TEXT;`,
];
