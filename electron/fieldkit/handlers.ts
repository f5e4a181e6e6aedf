import { RpcError } from '../../shared/rpc/errors';
import type { Cache } from '../cache';
import type { Handlers } from '../rpc/router';
import type { EvidenceService } from './evidence/service';
import { imageryFacing } from './facing';
import type { QuestionQueue } from './queue';
import type { FieldSettingsStore } from './settings';

export interface FieldKitDeps {
  settings: FieldSettingsStore;
  evidence: EvidenceService;
  queue: QuestionQueue;
  cache: Cache;
}

type FieldKitMethods = 'settings.get' | 'settings.save' | 'evidence.create' | 'evidence.verify' | 'evidence.key'
  | 'queue.list'
  | 'queue.add'
  | 'queue.edit'
  | 'queue.drop'
  | 'history.compare'
  | 'imagery.facing';

/** RPC handlers of the field kit. */
export function createFieldKitHandlers(deps: FieldKitDeps): Pick<Handlers, FieldKitMethods> {
  return {
    'settings.get': () => deps.settings.get(),
    'settings.save': (input) => deps.settings.save(input),
    'evidence.create': ({ queryId, blurFaces, blurVehicles }) => deps.evidence.create(queryId, { blurFaces, blurVehicles }),
    'evidence.verify': (input) => deps.evidence.verify(input),
    'evidence.key': () => deps.evidence.key(),
    'queue.list': () => deps.queue.list(),
    'queue.add': (input) => deps.queue.add(input),
    'queue.edit': ({ id, query }) => deps.queue.edit(id, query),
    'queue.drop': ({ id }) => deps.queue.drop(id),
    'imagery.facing': ({ lon, lat, radiusMetres, toleranceDeg }) => ({
      captures: imageryFacing(deps.cache, { lon, lat }, radiusMetres, toleranceDeg),
    }),
    'history.compare': ({ oldId, newId, toleranceMetres }) => {
      const a = deps.cache.get(oldId);
      const b = deps.cache.get(newId);
      if (!a || !b) throw new RpcError('NOT_FOUND', `No cached query with id ${a ? newId : oldId}`);
      const rerun = a.rerunOf === b.id || b.rerunOf === a.id;
      // Answers to different questions differ by design; comparing them would say nothing.
      if (a.kind !== b.kind || (!rerun && a.queryText.trim().toLowerCase() !== b.queryText.trim().toLowerCase()))
        throw new RpcError('CONFLICT', `Entries ${oldId} and ${newId} are not the same question`);
      return deps.cache.placeDiff(oldId, newId, toleranceMetres);
    },
  };
}
