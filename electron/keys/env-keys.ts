import type { KeyKind } from '../../shared/rpc/methods/keys';

/** A key given in the process environment, with the variable that holds it. */
export interface EnvKey {
  variable: string;
  value: string;
}

/** Keys given in the process environment, per connection: read only, never written anywhere. */
export interface EnvKeys {
  get(profileId: string, kind: KeyKind): EnvKey | null;
  /** Every value under the scheme's names, whatever connection it is for: the log redacts them from the start. */
  values(): string[];
}

const PREFIX: Record<KeyKind, string> = { bearer: 'FIELDLENS_KEY_', search: 'FIELDLENS_SEARCH_KEY_' };

/**
 * The variable that holds a connection's key: `FIELDLENS_KEY_<CONNECTION>` (compute and stream,
 * Bearer) or `FIELDLENS_SEARCH_KEY_<CONNECTION>` (imagery search, x-api-key), where
 * <CONNECTION> is the connection's label in capitals with each run of other characters one
 * underscore ("Field office" → FIELD_OFFICE); null for a label with no letter or digit.
 */
export function envKeyName(label: string, kind: KeyKind): string | null {
  const name = label
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return name ? `${PREFIX[kind]}${name}` : null;
}

/**
 * Keys from `env` for the connections `labelOf` names (null: an unknown connection, or one whose
 * keys are not the person's to give, such as the bundled service's). A blank variable is no key.
 */
export function createEnvKeys(env: Readonly<Record<string, string | undefined>>, labelOf: (profileId: string) => string | null): EnvKeys {
  return {
    get(profileId, kind) {
      const label = labelOf(profileId);
      const variable = label === null ? null : envKeyName(label, kind);
      const value = variable ? env[variable]?.trim() : undefined;
      return variable && value ? { variable, value } : null;
    },
    values: () =>
      Object.entries(env)
        .filter(([k, v]) => Object.values(PREFIX).some((p) => k.startsWith(p)) && v?.trim())
        .map(([, v]) => v!.trim()),
  };
}
