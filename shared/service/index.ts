export * from './geojson';
export * from './compute';
export * from './stream';
export * from './imagery';
export * from './problem';
