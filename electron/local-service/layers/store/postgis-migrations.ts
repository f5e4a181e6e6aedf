/**
 * Numbered migrations of the layer registry on PostgreSQL (scope "layers", applied by
 * applyPgMigrations). As in SQLite, each layer's features are a table of their own
 * (`layer_features_<n>`, created at import), so removing a layer is one DROP TABLE.
 */
/** The NOTIFY channel on which a layer's uid is sent when it becomes ready or is removed. */
export const LAYERS_CHANNEL = 'fieldlens_layers';

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
  // Every process of a team service hears a layer becoming ready or going away, whoever wrote
  // it (another replica, a --layer import on another machine), and builds its vocabulary again.
  `CREATE FUNCTION layers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       IF OLD.state = 'ready' THEN PERFORM pg_notify('${LAYERS_CHANNEL}', OLD.uid); END IF;
     ELSIF NEW.state = 'ready' THEN
       PERFORM pg_notify('${LAYERS_CHANNEL}', NEW.uid);
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER layers_changed AFTER INSERT OR UPDATE OR DELETE ON layers FOR EACH ROW EXECUTE FUNCTION layers_changed();`,
];
