export { parseAngles, type AngleStyle, type LatLon } from './angles';
export { COORD_FORMATS, COORD_FORMAT_LABELS, formatCoord, formatDecimal, type CoordFormat } from './format';
export { bandOf, fromMgrs, fromUtm, toMgrs, toUtm, zoneOf, type Utm } from './grid';
export { parseCoord, type CoordParse, type ParsedCoord } from './parse';
export { rewritePaste, type PasteConversion } from './paste';
