import type { Handlers } from '../rpc/router';
import type { EvidenceService } from './evidence/service';
import type { QuestionQueue } from './queue';
import type { FieldSettingsStore } from './settings';

export interface FieldKitDeps {
  settings: FieldSettingsStore;
  evidence: EvidenceService;
  queue: QuestionQueue;
}

type FieldKitMethods = 'settings.get' | 'settings.save' | 'evidence.create' | 'evidence.verify' | 'evidence.key'
  | 'queue.list'
  | 'queue.add'
  | 'queue.edit'
  | 'queue.drop';

/** RPC handlers of the field kit. */
export function createFieldKitHandlers(deps: FieldKitDeps): Pick<Handlers, FieldKitMethods> {
  return {
    'settings.get': () => deps.settings.get(),
    'settings.save': (input) => deps.settings.save(input),
    'evidence.create': ({ queryId }) => deps.evidence.create(queryId),
    'evidence.verify': (input) => deps.evidence.verify(input),
    'evidence.key': () => deps.evidence.key(),
    'queue.list': () => deps.queue.list(),
    'queue.add': (input) => deps.queue.add(input),
    'queue.edit': ({ id, query }) => deps.queue.edit(id, query),
    'queue.drop': ({ id }) => deps.queue.drop(id),
  };
}
