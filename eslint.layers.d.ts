// Types of eslint.layers.js for the lint test, which reads the floor table.
export const electronFolders: Record<string, readonly string[]>;
export const layerRules: unknown[];
export const kindNames: readonly string[];
