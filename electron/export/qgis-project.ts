import { labelingXml, rendererXml, symbolType, xmlText, type LayerStyle } from './qgis-style';

/**
 * A QGIS project (.qgs XML) over one GeoPackage beside it. The project is in EPSG:3857, the
 * map's own projection and the grid of its basemap tiles; the layers stay in EPSG:4326 and QGIS
 * reprojects them on the fly. Data sources are relative ("./name.gpkg"), so the folder can move.
 */

const R = 6378137;
export const MERCATOR_LAT = 85.05112878;

/** Longitude/latitude to EPSG:3857 metres (latitude held inside the Web Mercator square). */
export function toMercator(lon: number, lat: number): [number, number] {
  const phi = (Math.max(-MERCATOR_LAT, Math.min(MERCATOR_LAT, lat)) * Math.PI) / 180;
  return [(R * lon * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + phi / 2))];
}

export type Box = [number, number, number, number];

export interface ProjectVectorLayer {
  id: string;
  name: string;
  table: string;
  geometryType: string;
  style: LayerStyle;
  /** Field shown as the label; null: no labels. */
  label: string | null;
  readOnly: boolean;
  /** Where the layer came from, in words (the layer's abstract). */
  abstract: string;
  /** A renderer of its own (the basemap's), in place of `style`. */
  renderer?: string;
  /** Labels of its own (the basemap's place names), in place of those by `label`. */
  labels?: string | null;
  /** `|geometrytype=` of a table holding several kinds of geometry: this layer shows one. */
  geometryFilter?: 'Point' | 'LineString' | 'Polygon';
  /** Off in the layers panel (drawn once switched on). */
  hidden?: boolean;
}

/** A raster basemap: online tiles (off until switched on) or an area pack's tiles in the GeoPackage. */
export type ProjectBasemap = { kind: 'online'; name: string; url: string; maxZoom: number } | { kind: 'tiles'; name: string; table: string };

export interface ProjectSpec {
  title: string;
  abstract: string;
  /** File name of the GeoPackage beside the project. */
  gpkg: string;
  /** Top of the map first, as in the QGIS layers panel. */
  layers: ProjectVectorLayer[];
  /** The basemap, top first: place names, rasters, then the offline tables, in a group of its own. */
  basemap: { labels: ProjectVectorLayer[]; rasters: ProjectBasemap[]; below: ProjectVectorLayer[] };
  /** The map's background: its water ('#rrggbb'). */
  background: string;
  /** Lon/lat box the project opens on. */
  extent: Box;
  created: string;
}

const CRS: Record<3857 | 4326, string> = {
  3857:
    '<spatialrefsys><proj4>+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs</proj4>' +
    '<srsid>3857</srsid><srid>3857</srid><authid>EPSG:3857</authid><description>WGS 84 / Pseudo-Mercator</description>' +
    '<projectionacronym>merc</projectionacronym><ellipsoidacronym>EPSG:7030</ellipsoidacronym><geographicflag>false</geographicflag></spatialrefsys>',
  4326:
    '<spatialrefsys><proj4>+proj=longlat +datum=WGS84 +no_defs</proj4><srsid>3452</srsid><srid>4326</srid><authid>EPSG:4326</authid>' +
    '<description>WGS 84</description><projectionacronym>longlat</projectionacronym><ellipsoidacronym>EPSG:7030</ellipsoidacronym>' +
    '<geographicflag>true</geographicflag></spatialrefsys>',
};

const el = (name: string, text: string) => `<${name}>${xmlText(text)}</${name}>`;

function xyzSource(url: string, maxZoom: number): string {
  const encoded = url.replace(/\{/g, '%7B').replace(/\}/g, '%7D');
  return `type=xyz&url=${encoded}&zmax=${maxZoom}&zmin=0`;
}

interface LayerEntry {
  id: string;
  name: string;
  source: string;
  provider: string;
  xml: string;
  checked: boolean;
}

function metadataXml(title: string, abstract: string): string {
  return `<resourceMetadata><type>dataset</type>${el('title', title)}${el('abstract', abstract)}</resourceMetadata>`;
}

function vectorEntry(l: ProjectVectorLayer, gpkg: string): LayerEntry {
  const source = `./${gpkg}|layername=${l.table}${l.geometryFilter ? `|geometrytype=${l.geometryFilter}` : ''}`;
  const type = l.geometryFilter ? ({ Point: 'marker', LineString: 'line', Polygon: 'fill' } as const)[l.geometryFilter] : symbolType(l.geometryType);
  const labels = l.labels !== undefined ? l.labels : l.label ? labelingXml(l.label) : null;
  const geometry = type === 'marker' ? 'Point' : type === 'line' ? 'Line' : 'Polygon';
  const xml =
    `<maplayer type="vector" geometry="${geometry}" labelsEnabled="${labels ? 1 : 0}" readOnly="${l.readOnly ? 1 : 0}" ` +
    `hasScaleBasedVisibilityFlag="0" minScale="100000000" maxScale="0" styleCategories="AllStyleCategories">` +
    el('id', l.id) +
    el('datasource', source) +
    el('layername', l.name) +
    `<srs>${CRS[4326]}</srs>` +
    metadataXml(l.name, l.abstract) +
    `<provider encoding="UTF-8">ogr</provider>` +
    `<flags><Identifiable>1</Identifiable><Removable>1</Removable><Searchable>1</Searchable><Private>0</Private></flags>` +
    (l.renderer ?? rendererXml(l.style, type)) +
    (labels ?? '') +
    (l.label ? `<previewExpression>${xmlText(`"${l.label}"`)}</previewExpression>` : '') +
    `</maplayer>`;
  return { id: l.id, name: l.name, source, provider: 'ogr', xml, checked: !l.hidden };
}

function basemapEntry(b: ProjectBasemap, gpkg: string, n: number): LayerEntry {
  const [source, provider, abstract] =
    b.kind === 'online'
      ? [xyzSource(b.url, b.maxZoom), 'wms', 'Map data © OpenStreetMap contributors (online tiles).']
      : [`GPKG:./${gpkg}:${b.table}`, 'gdal', 'Basemap tiles packed for offline use. Map data © OpenStreetMap contributors.'];
  // QGIS gives a raster layer a new id when its own is a bare word; this one keeps.
  const id = `layer_0_basemap_${n}`;
  const xml =
    `<maplayer type="raster" hasScaleBasedVisibilityFlag="0" minScale="100000000" maxScale="0" styleCategories="AllStyleCategories">` +
    el('id', id) +
    el('datasource', source) +
    el('layername', b.name) +
    `<srs>${CRS[3857]}</srs>` +
    metadataXml(b.name, abstract) +
    el('provider', provider) +
    `<flags><Identifiable>0</Identifiable><Removable>1</Removable><Searchable>0</Searchable><Private>0</Private></flags>` +
    `<pipe><rasterrenderer type="singlebandcolordata" opacity="1" alphaBand="-1" band="1" nodataColor=""><rasterTransparency/><minMaxOrigin><limits>None</limits><extent>WholeRaster</extent><statAccuracy>Estimated</statAccuracy><cumulativeCutLower>0.02</cumulativeCutLower><cumulativeCutUpper>0.98</cumulativeCutUpper><stdDevFactor>2</stdDevFactor></minMaxOrigin></rasterrenderer><brightnesscontrast brightness="0" contrast="0" gamma="1"/><huesaturation saturation="0" grayscaleMode="0" colorizeOn="0" colorizeRed="255" colorizeGreen="128" colorizeBlue="128" colorizeStrength="100" invertColors="0"/><rasterresampler maxOversampling="2"/></pipe>` +
    `</maplayer>`;
  // The online tiles need the network: off until the analyst switches them on.
  return { id, name: b.name, source, provider, xml, checked: b.kind !== 'online' };
}

const treeLayer = (e: LayerEntry) =>
  `<layer-tree-layer id="${xmlText(e.id)}" name="${xmlText(e.name)}" source="${xmlText(e.source)}" providerKey="${e.provider}" checked="${e.checked ? 'Qt::Checked' : 'Qt::Unchecked'}" expanded="${e.provider === 'ogr' ? 1 : 0}"><customproperties/></layer-tree-layer>`;

/** QGIS's project background: its Gui properties, one colour part each. */
function backgroundXml(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `<Gui><CanvasColorRedPart type="int">${r}</CanvasColorRedPart><CanvasColorGreenPart type="int">${g}</CanvasColorGreenPart><CanvasColorBluePart type="int">${b}</CanvasColorBluePart></Gui>`;
}

/** The project's XML: layers top first, the basemap group at the bottom, opening on the given extent. */
export function projectXml(spec: ProjectSpec): string {
  const data = spec.layers.map((l) => vectorEntry(l, spec.gpkg));
  const base = [
    ...spec.basemap.labels.map((l) => vectorEntry(l, spec.gpkg)),
    ...spec.basemap.rasters.map((b, i) => basemapEntry(b, spec.gpkg, i + 1)),
    ...spec.basemap.below.map((l) => vectorEntry(l, spec.gpkg)),
  ];
  const entries = [...data, ...base];
  const tree =
    data.map(treeLayer).join('') +
    (base.length
      ? `<layer-tree-group name="Basemap" checked="Qt::Checked" expanded="0"><customproperties/>${base.map(treeLayer).join('')}</layer-tree-group>`
      : '');
  const [x0, y0] = toMercator(spec.extent[0], spec.extent[1]);
  const [x1, y1] = toMercator(spec.extent[2], spec.extent[3]);
  const extent = `<xmin>${x0}</xmin><ymin>${y0}</ymin><xmax>${x1}</xmax><ymax>${y1}</ymax>`;
  return (
    `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n` +
    `<qgis projectname="${xmlText(spec.title)}" version="3.22.0">` +
    `<homePath path=""/>` +
    el('title', spec.title) +
    `<projectCrs>${CRS[3857]}</projectCrs>` +
    `<layer-tree-group><customproperties/>${tree}</layer-tree-group>` +
    `<mapcanvas name="theMapCanvas" annotationsVisible="1"><units>meters</units><extent>${extent}</extent><rotation>0</rotation>` +
    `<destinationsrs>${CRS[3857]}</destinationsrs><rendermaptile>0</rendermaptile></mapcanvas>` +
    `<projectlayers>${entries.map((e) => e.xml).join('')}</projectlayers>` +
    `<properties>${backgroundXml(spec.background)}<Paths><Absolute type="bool">false</Absolute></Paths><SpatialRefSys><ProjectionsEnabled type="int">1</ProjectionsEnabled></SpatialRefSys></properties>` +
    `<projectMetadata>${el('title', spec.title)}${el('abstract', spec.abstract)}<type>project</type>${el('creation', spec.created)}</projectMetadata>` +
    `<ProjectViewSettings UseProjectScales="0" rotation="0"><Scales/>` +
    `<DefaultViewExtent xmin="${x0}" ymin="${y0}" xmax="${x1}" ymax="${y1}">${CRS[3857]}</DefaultViewExtent></ProjectViewSettings>` +
    `</qgis>\n`
  );
}
