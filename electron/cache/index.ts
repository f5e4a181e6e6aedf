export * from './cache';
export { FEATURE_ID_SPAN, migrate, migrations, type Migration } from './migrations';
export { geometryBBox, type BBox } from './spatial';
