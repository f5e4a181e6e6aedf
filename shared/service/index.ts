// The schemas of the service interface, docs/service-interface.md: "spec 2.4" in a comment of
// these files (and of the code that uses them) is section 2.4 there.
export * from './geojson';
export * from './compute';
export * from './stream';
export * from './imagery';
export * from './problem';
export * from './reading';
