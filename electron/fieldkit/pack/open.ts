import Database from 'better-sqlite3';
import { RpcError } from '../../../shared/rpc/errors';
import type { PackContents } from '../../../shared/rpc/methods/pack';
import type { Cache } from '../../cache';
import { ITEM_TABLES, uploadFromRow, type QueryRows, type Row } from '../../cache/transfer';
import { decodeWkb } from '../../ground/wkb';
import { isPack, ITEM_PACK_TABLE, T } from './tables';
import type { PackLayers } from './layers-port';
import { TILES_TABLE, type Tile } from './tiles';

export interface OpenDeps {
  cache: Cache;
  layers: () => PackLayers | null;
}

const zero = (): PackContents => ({ queries: 0, features: 0, media: 0, uploads: 0, layers: 0, layerFeatures: 0, tiles: 0 });

/**
 * Brings a pack into this app: its questions into the cache (History, map and answers read them
 * from there), its media into the media cache (imagery shows offline), its data layers into the
 * layer store, its basemap tiles into the tile cache (the map shows them offline). Everything is
 * matched by stable key, so opening a pack twice adds nothing twice: rows already here are
 * counted as updated.
 */
export async function openPack(deps: OpenDeps, path: string): Promise<{ added: PackContents; updated: PackContents }> {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new RpcError('NOT_FOUND', `${path} cannot be opened: ${(e as Error).message}`);
  }
  try {
    let pack = false;
    try {
      pack = isPack(db);
    } catch {
      pack = false;
    }
    if (!pack) throw new RpcError('VALIDATION', `${path} is not a Fieldlens area pack`);
    const layerRows = db.prepare(`SELECT * FROM ${T.layers}`).all() as Row[];
    const layers = deps.layers();
    if (layerRows.length && !layers)
      throw new RpcError('OFFLINE', 'The bundled service is not running, so the data layers of this pack cannot be stored');
    const added = zero();
    const updated = zero();
    const uploadsBefore = deps.cache.stats().uploads.count;

    const keys = deps.cache.queryKeys();
    const items = ITEM_TABLES.map((t) => ({ t, stmt: db.prepare(`SELECT * FROM ${ITEM_PACK_TABLE[t]} WHERE query_key = ? ORDER BY rank`) }));
    const links = db.prepare(
      `SELECT l.field, l.position, l.name, u.key AS sha256, u.size, u.content_type, u.content, u.created_at
       FROM ${T.queryUploads} l JOIN ${T.uploads} u ON u.key = l.upload_key WHERE l.query_key = ? ORDER BY l.field, l.position`,
    );
    deps.cache.bulk(() => {
      for (const q of db.prepare(`SELECT * FROM ${T.queries} ORDER BY started_at, id`).iterate() as Iterable<Row>) {
        const { id: _id, key, rerun_of_key, raw_is_text, ...query } = q;
        if (raw_is_text === 1 && Buffer.isBuffer(query['raw_response'])) query['raw_response'] = query['raw_response'].toString('utf8');
        const rows: QueryRows = {
          key: key as string,
          rerunOfKey: (rerun_of_key as string | null) ?? null,
          query,
          items: Object.fromEntries(
            items.map(({ t, stmt }) => [t, (stmt.all(key) as Row[]).map(({ id: _i, query_key: _k, ...rest }) => rest)]),
          ) as QueryRows['items'],
          uploads: (links.all(key) as Row[]).map(uploadFromRow),
        };
        const r = deps.cache.importQuery(rows, keys);
        const into = r.added ? added : updated;
        into.queries++;
        into.features += rows.items.features.length;
      }
    });
    const uploadsInPack = db.prepare(`SELECT count(*) FROM ${T.uploads}`).pluck().get() as number;
    added.uploads = deps.cache.stats().uploads.count - uploadsBefore;
    updated.uploads = uploadsInPack - added.uploads;

    deps.cache.bulk(() => {
      for (const m of db.prepare(`SELECT key, content_type, bytes, fetched_at FROM ${T.media}`).iterate() as Iterable<Row>) {
        const url = m['key'] as string;
        (deps.cache.getMedia(url) ? updated : added).media++;
        deps.cache.putMedia(url, m['content_type'] as string, m['bytes'] as Buffer, m['fetched_at'] as number);
      }
    });

    for (const l of layerRows) await openLayer(layers!, db, l, added, updated);

    // Tiles go into the cache too, so the map draws them offline (and QGIS still reads the pack).
    if (hasTiles(db))
      deps.cache.bulk(() => {
        for (const t of db.prepare(`SELECT zoom_level AS z, tile_column AS x, tile_row AS y, tile_data AS data FROM ${TILES_TABLE}`).iterate() as Iterable<Tile>)
          (deps.cache.putTile(t.z, t.x, t.y, t.data) ? added : updated).tiles++;
      });
    return { added, updated };
  } finally {
    db.close();
  }
}

const hasTiles = (db: Database.Database) =>
  db.prepare("SELECT 1 FROM gpkg_contents WHERE table_name = ? AND data_type = 'tiles'").get(TILES_TABLE) !== undefined;

/** A packed data layer replaces the layer of the same name and file, or is added. */
async function openLayer(layers: PackLayers, db: Database.Database, l: Row, added: PackContents, updated: PackContents): Promise<void> {
  const rows = db.prepare(`SELECT source_id, sublayer, geometry, tags FROM ${T.layerFeatures} WHERE layer_key = ? ORDER BY n`).all(l['key']) as Row[];
  const { replaced } = await layers.replace(
    {
      name: l['name'] as string,
      sourceFile: l['source_file'] as string,
      format: l['format'] as string,
      licence: (l['licence'] as string | null) ?? null,
      sourceText: (l['source_text'] as string | null) ?? '',
    },
    rows.map((r) => ({
      sourceId: r['source_id'] as string,
      sublayer: (r['sublayer'] as string | null) ?? null,
      geometry: decodeWkb(r['geometry'] as Buffer),
      tags: JSON.parse(r['tags'] as string) as Record<string, unknown>,
    })),
  );
  const into = replaced ? updated : added;
  into.layers++;
  into.layerFeatures += rows.length;
}
