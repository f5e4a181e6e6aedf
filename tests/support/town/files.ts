import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTown, townGeoJson, townOsmXml, type TownFeature } from './town';

export interface TownFiles {
  dir: string;
  features: TownFeature[];
  osm: string;
  pbf: string;
  geojson: string;
  gpkg: string;
  /** Points only: a Shapefile holds one geometry type. */
  shp: string;
  fgb: string;
  kml: string;
  /** Points only, as waypoints. */
  gpx: string;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * Writes the town in every format into `dir`: OSM XML by the generator, PBF by `osmium cat`,
 * and GeoPackage (two tables), Shapefile, FlatGeobuf, KML and GPX by GDAL's ogr2ogr from the
 * generator's GeoJSON.
 */
export function writeTownFiles(dir: string): TownFiles {
  mkdirSync(dir, { recursive: true });
  const features = buildTown();
  const f = (name: string) => join(dir, name);
  writeFileSync(f('town.osm'), townOsmXml(features));
  run('osmium', ['cat', '--overwrite', '-o', f('town.osm.pbf'), f('town.osm')]);
  writeFileSync(f('town.geojson'), JSON.stringify(townGeoJson(features)));
  const pointsOnly = ['-where', "OGR_GEOMETRY='POINT'"];
  run('ogr2ogr', ['-f', 'GPKG', f('town.gpkg'), f('town.geojson'), '-nln', 'points', ...pointsOnly]);
  run('ogr2ogr', ['-f', 'GPKG', '-update', f('town.gpkg'), f('town.geojson'), '-nln', 'shapes', '-where', "OGR_GEOMETRY<>'POINT'"]);
  run('ogr2ogr', ['-f', 'ESRI Shapefile', f('town.shp'), f('town.geojson'), '-nln', 'town', ...pointsOnly]);
  run('ogr2ogr', ['-f', 'FlatGeobuf', f('town.fgb'), f('town.geojson')]);
  run('ogr2ogr', ['-f', 'KML', f('town.kml'), f('town.geojson')]);
  run('ogr2ogr', ['-f', 'GPX', f('town.gpx'), f('town.geojson'), '-nlt', 'POINT', '-nln', 'waypoints', '-dsco', 'GPX_USE_EXTENSIONS=YES', '-select', 'name,amenity,shop,opening_hours', ...pointsOnly]);
  return { dir, features, osm: f('town.osm'), pbf: f('town.osm.pbf'), geojson: f('town.geojson'), gpkg: f('town.gpkg'), shp: f('town.shp'), fgb: f('town.fgb'), kml: f('town.kml'), gpx: f('town.gpx') };
}
