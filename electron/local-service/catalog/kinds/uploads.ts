/**
 * Uploaded features: a source of their own (the request's files, not the catalog), with the
 * name and storage code of a kind so saved result sets can hold them beside catalog items.
 */
export const UPLOADS = {
  name: 'upload',
  code: 3,
  label: { one: 'uploaded feature', many: 'uploaded features' },
} as const;
