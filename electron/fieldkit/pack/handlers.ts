import type { Handlers } from '../../rpc/router';
import type { PackService } from './service';

type PackMethods = 'pack.estimate' | 'pack.create' | 'pack.cancel' | 'pack.open';

/** RPC handlers of the offline area pack. */
export function createPackHandlers(packs: PackService): Pick<Handlers, PackMethods> {
  return {
    'pack.estimate': (sel) => packs.estimate(sel),
    'pack.create': ({ selection, path }) => packs.create(selection, path),
    'pack.cancel': ({ jobId }) => packs.cancel(jobId),
    'pack.open': ({ path }) => packs.open(path),
  };
}
