import type { Handlers } from '../rpc/router';
import type { FieldSettingsStore } from './settings';

export interface FieldKitDeps {
  settings: FieldSettingsStore;
}

type FieldKitMethods = 'settings.get' | 'settings.save';

/** RPC handlers of the field kit. */
export function createFieldKitHandlers(deps: FieldKitDeps): Pick<Handlers, FieldKitMethods> {
  return {
    'settings.get': () => deps.settings.get(),
    'settings.save': (input) => deps.settings.save(input),
  };
}
