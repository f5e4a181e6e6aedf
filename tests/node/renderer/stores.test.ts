import { describe, expect, it } from 'vitest';
import type { Result } from '../../../shared/rpc/errors';
import { useAppStore } from '../../../renderer/src/stores/app';
import { useAskStore } from '../../../renderer/src/stores/ask';
import { useAttachmentsStore } from '../../../renderer/src/stores/attachments';
import { LAYER_COLOURS } from '../../../renderer/src/map/layerColours';
import { useExportStore } from '../../../renderer/src/stores/exports';
import { useHistoryStore } from '../../../renderer/src/stores/history';
import { useMapStore } from '../../../renderer/src/stores/map';
import { useUnitsStore } from '../../../renderer/src/stores/units';
import { scriptedClient, withStores } from './support/stores';


const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const response = (id: string, names: string[]) => ({
  queryId: names.length,
  response: {
    id,
    query: 'q',
    answer: { status: 'complete', content: 'ok', error: null },
    results: {
      type: 'FeatureCollection',
      numberMatched: names.length + 10,
      numberReturned: names.length,
      features: names.map((name, i) => ({
        type: 'Feature',
        id: `f${i}`,
        geometry: { type: 'Point', coordinates: [4.8 + i / 10, 45.7] },
        properties: { source_id: `s${i}`, name, address: '', score: 1, distance_meters: 100 * i, source: { name: 'x', url: '' }, attributes: {} },
      })),
    },
    warnings: [],
    usage: { meters: 1 },
  },
});

describe('Ask store', () => {
  it('reads the reading of the answer and a refusal; asks a reading again with the rest of the question as it was', async () => {
    const reading = { subject: 'airports', source: 'x', filters: ['in France'], relations: [], text: 'airports · in France' };
    const refusal = { code: 'unread_question', unread: [{ words: 'purple', why: 'no rule reads these words' }], reading: 'airports · in France', plan: reading };
    let step = 0;
    const { client, calls } = scriptedClient(async (method) => {
      if (method !== 'compute.run') return { ok: true, value: {} };
      step++;
      if (step === 2) return { ok: false, error: { code: 'VALIDATION', message: 'not read', details: { status: 422, refusal } } };
      const r = response(uuid(step), ['A']);
      return { ok: true, value: { ...r, response: { ...r.response, warnings: ['x', { code: 'plan', message: 'read as: …', reading }] } } };
    });
    const ask = withStores(client, () => useAskStore());
    ask.query = 'airports in France';
    ask.limit = 7;
    await ask.run();
    expect(ask.reading).toEqual(reading);
    expect(ask.refusal).toBeNull();
    ask.query = 'purple airports in France';
    await ask.run();
    expect(ask.refusal).toEqual(refusal);
    // The refused question asked again as its rest: the same limit, a new step of the thread.
    await ask.rerun('airports in France', 'refused');
    expect(calls[2]).toMatchObject({ method: 'compute.run', input: { request: { query: 'airports in France', limit: 7 } } });
    expect(ask.refusal).toBeNull();
    expect(ask.query).toBe('airports in France');
    // Chips changed on the shown answer: it takes that answer's place in the thread.
    await ask.rerun('airports', 'shown');
    expect(calls[3]).toMatchObject({ input: { request: { query: 'airports', limit: 7 } } });
    expect(ask.thread.map((s) => s.query)).toEqual(['airports']);
  });

  it('runs a question, puts its results on the map, and continues it with search_id', async () => {
    let n = 0;
    const { client, calls } = scriptedClient(async (method) => {
      if (method !== 'compute.run') return { ok: true, value: {} };
      n++;
      return { ok: true, value: response(uuid(n), n === 1 ? ['A', 'B', 'C'] : ['A']) };
    });
    const { ask, map } = withStores(client, () => ({ ask: useAskStore(), map: useMapStore() }));
    ask.query = 'airports near Lyon';
    ask.measurement = ' count ';
    await ask.run();
    expect(calls[0]).toMatchObject({
      method: 'compute.run',
      input: { request: { query: 'airports near Lyon', limit: 100, answer: true, measurement: 'count' } },
    });
    expect((calls[0]!.input as { request: object }).request).not.toHaveProperty('search_id');
    expect(ask.rows.map((r) => r.title)).toEqual(['A', 'B', 'C']);
    expect(map.collections.ask?.features).toHaveLength(3);
    expect(map.fitRequest?.layer).toBe('ask');

    // Without a map view registered nothing is sent; with one, its extent goes with every question.
    expect((calls[0]!.input as { request: object }).request).not.toHaveProperty('view_bbox');
    const view: [number, number, number, number] = [4.7, 45.6, 5.0, 45.9];
    map.provideExtent(() => [...view]);

    ask.query = 'top 1';
    await ask.run(true);
    expect((calls[1]!.input as { request: { search_id?: string } }).request.search_id).toBe(uuid(1));
    expect((calls[1]!.input as { request: { view_bbox?: number[] } }).request.view_bbox).toEqual(view);
    expect(ask.thread.map((s) => s.query)).toEqual(['airports near Lyon', 'top 1']);
    expect(ask.query).toBe('');

    // A new question (not a follow-up) starts a new thread.
    ask.query = 'cities in Peru';
    await ask.run();
    expect(ask.thread.map((s) => s.query)).toEqual(['cities in Peru']);
  });

  it('is busy while running and cancels the pending run by its own runId', async () => {
    let release: (r: Result<unknown>) => void = () => {};
    const { client, calls } = scriptedClient((method) => {
      if (method === 'compute.run') return new Promise((resolve) => (release = resolve));
      return Promise.resolve({ ok: true, value: { cancelled: true } });
    });
    const ask = withStores(client, () => useAskStore());
    ask.query = 'slow question';
    const running = ask.run();
    expect(ask.busy).toBe(true);
    await ask.cancel();
    const runId = (calls[0]!.input as { runId: string }).runId;
    expect(runId).toMatch(/^run-/);
    expect(calls[1]).toEqual({ method: 'compute.cancel', input: { runId } });
    release({ ok: false, error: { code: 'CANCELLED', message: 'Cancelled' } });
    await running;
    expect(ask.busy).toBe(false);
    expect(ask.error?.code).toBe('CANCELLED');
    expect(ask.response).toBeNull();
  });

  it('keeps the error with its code and leaves earlier results in place', async () => {
    let fail = false;
    const { client } = scriptedClient(async () =>
      fail ? { ok: false, error: { code: 'OFFLINE', message: 'Service unreachable' } } : { ok: true, value: response(uuid(9), ['A']) },
    );
    const { ask } = withStores(client, () => ({ ask: useAskStore() }));
    ask.query = 'q';
    await ask.run();
    fail = true;
    await ask.run();
    expect(ask.error).toEqual({ code: 'OFFLINE', message: 'Service unreachable' });
    expect(ask.rows.map((r) => r.title)).toEqual(['A']);
    expect(ask.stale).toEqual({ answered: 'q', asked: 'q', outcome: 'failed' });
  });

  it('greys the shown answer when a later question is refused or fails, and goes back to it', async () => {
    const refusal = { code: 'unread_question', unread: [{ words: 'purple', why: 'no rule reads these words' }], reading: 'airports', plan: { subject: 'airports', source: 'x', filters: [], relations: [], text: 'airports' } };
    const outcomes: Array<Result<unknown> | 'answer'> = [
      'answer',
      { ok: false, error: { code: 'VALIDATION', message: 'not read', details: { status: 422, refusal } } },
      { ok: false, error: { code: 'HTTP', message: 'Service error', details: { status: 500 } } },
      { ok: false, error: { code: 'CANCELLED', message: 'Cancelled' } },
      'answer',
    ];
    let n = 0;
    const { client } = scriptedClient(async (method) => {
      if (method !== 'compute.run') return { ok: true, value: {} };
      const o = outcomes[n++]!;
      return o === 'answer' ? { ok: true, value: response(uuid(n), n === 1 ? ['A', 'B'] : ['C']) } : o;
    });
    const { ask, map } = withStores(client, () => ({ ask: useAskStore(), map: useMapStore() }));
    ask.query = 'airports near Lyon';
    await ask.run();
    expect(ask.stale).toBeNull();
    expect(map.collections.ask?.features).toHaveLength(2);

    ask.query = 'purple airports near Lyon';
    await ask.run();
    expect(ask.stale).toEqual({ answered: 'airports near Lyon', asked: 'purple airports near Lyon', outcome: 'refused' });
    // The rows stay to read (greyed), the map no longer shows them as the answer.
    expect(ask.rows.map((r) => r.title)).toEqual(['A', 'B']);
    expect(map.collections.ask ?? null).toBeNull();

    ask.restore();
    expect(ask.stale).toBeNull();
    expect(ask.error).toBeNull();
    expect(map.collections.ask?.features).toHaveLength(2);

    ask.query = 'airports near Lyon, broken';
    await ask.run();
    expect(ask.stale).toEqual({ answered: 'airports near Lyon', asked: 'airports near Lyon, broken', outcome: 'failed' });
    expect(map.collections.ask ?? null).toBeNull();

    // A cancelled question says nothing about the shown answer.
    ask.restore();
    ask.query = 'slow question';
    await ask.run();
    expect(ask.error?.code).toBe('CANCELLED');
    expect(ask.stale).toBeNull();
    expect(map.collections.ask?.features).toHaveLength(2);

    ask.query = 'cafes';
    await ask.run();
    expect(ask.stale).toBeNull();
    expect(ask.rows.map((r) => r.title)).toEqual(['C']);
  });
});

describe('attachments', () => {
  it('go with the question they were attached for, unless kept for the next ones', async () => {
    let n = 0;
    const { client, calls } = scriptedClient(async (method) => {
      if (method === 'uploads.preview') return { ok: false, error: { code: 'INTERNAL', message: 'no preview here' } };
      if (method !== 'compute.run') return { ok: true, value: {} };
      n++;
      return n === 3 ? { ok: false, error: { code: 'HTTP', message: 'Service error' } } : { ok: true, value: response(uuid(n), ['A']) };
    });
    const { ask, files } = withStores(client, () => ({ ask: useAskStore(), files: useAttachmentsStore() }));
    const sent = () => calls.filter((c) => c.method === 'compute.run').map((c) => ((c.input as { attachments?: Array<{ name: string }> }).attachments ?? []).map((a) => a.name));
    const csv = { name: 'depots.csv', size: 3, contentType: 'text/csv', dataBase64: 'YSxi' };
    await files.attach([csv]);
    ask.query = 'depots near Lyon';
    await ask.run();
    ask.query = 'cafes in Lyon';
    await ask.run();
    expect(sent()).toEqual([['depots.csv'], []]);
    // Still listed, marked with the question it went with.
    expect(files.files.map((f) => f.usedFor)).toEqual(['depots near Lyon']);

    // Kept: it rides along; a failed question keeps it anyway (it was not answered).
    files.setKeep(true);
    await ask.run();
    await ask.run();
    files.setKeep(false);
    await ask.run();
    await ask.run();
    expect(sent().slice(2)).toEqual([['depots.csv'], ['depots.csv'], ['depots.csv'], []]);
    // Sent again on request, once.
    files.sendAgain('files', 'depots.csv');
    await ask.run();
    await ask.run();
    expect(sent().slice(6)).toEqual([['depots.csv'], []]);
  });
});

describe('map selection', () => {
  it('selects in one layer at a time, and showing a layer again clears its selection', () => {
    const { client } = scriptedClient(async () => ({ ok: true, value: {} }));
    const map = withStores(client, () => useMapStore());
    map.select('ask', 'f1', 'map');
    expect(map.selectedIn('ask')).toBe('f1');
    expect(map.selectedIn('history')).toBeNull();
    map.select('history', 'f2');
    expect(map.selectedIn('ask')).toBeNull();
    map.show('history', { type: 'FeatureCollection', features: [] });
    expect(map.selection).toBeNull();
    // An empty collection asks for no zoom.
    expect(map.fitRequest).toBeNull();
  });
});

describe('History store', () => {
  it('multi-selects with shift ranges and forgets entries that went away', async () => {
    let ids = [5, 4, 3, 2, 1];
    const { client } = scriptedClient(async (method) => {
      if (method === 'history.list')
        return { ok: true, value: { items: ids.map((id) => ({ id, queryText: `q${id}` })), hasMore: false } };
      return { ok: true, value: { deleted: true } };
    });
    const history = withStores(client, () => useHistoryStore());
    await history.load();
    history.toggleChecked(4);
    history.toggleChecked(2, true);
    expect([...history.checked].sort()).toEqual([2, 3, 4]);
    history.toggleChecked(3);
    expect([...history.checked].sort()).toEqual([2, 4]);
    ids = [5, 4, 1];
    await history.load();
    expect([...history.checked]).toEqual([4]);
  });
});

describe('Export store', () => {
  it('starts a job for the chosen queries, follows its progress, and cancels it by jobId', async () => {
    const { client, calls, emit } = scriptedClient(async (method) =>
      method === 'export.start'
        ? { ok: true, value: { jobId: 'j1', fileName: 'fieldlens.geojson', downloadPath: '/exports/j1' } }
        : { ok: true, value: { cancelled: true } },
    );
    const exp = withStores(client, () => useExportStore());
    exp.format = 'geojson';
    await exp.start([7, 3]);
    expect(calls[0]).toEqual({ method: 'export.start', input: { selection: { queryIds: ['7', '3'] }, format: 'geojson', units: { distance: 'km', short: 'm' } } });
    expect(exp.job).toMatchObject({ jobId: 'j1', state: 'running' });
    expect(exp.running).toBe(true);

    const progress = { jobId: 'j1', written: 50, total: 100, layer: 'q', fileName: 'fieldlens.geojson', bytes: null, downloadPath: '/exports/j1', error: null };
    emit('export.progress', { ...progress, state: 'running' });
    expect(exp.job?.written).toBe(50);
    // Events of another job do not replace the one running.
    emit('export.progress', { ...progress, jobId: 'other', state: 'done' });
    expect(exp.job?.jobId).toBe('j1');

    await exp.cancel();
    expect(calls[1]).toEqual({ method: 'export.cancel', input: { jobId: 'j1' } });
    emit('export.progress', { ...progress, state: 'cancelled' });
    expect(exp.running).toBe(false);
  });

  it('on the desktop, asks the save dialog first and exports to the chosen path', async () => {
    let dialogPath: string | null = '/home/analyst/lyon.gpkg';
    const { client, calls } = scriptedClient(async (method) => {
      if (method === 'app.info') return { ok: true, value: { name: 'Fieldlens', version: '1', shell: 'electron', dataDir: '/d' } };
      if (method === 'export.chooseDestination') return { ok: true, value: { path: dialogPath } };
      if (method === 'export.start') return { ok: true, value: { jobId: 'j3', fileName: 'lyon.gpkg', downloadPath: null } };
      return { ok: false, error: { code: 'NOT_FOUND', message: method } };
    });
    const { exp, app } = withStores(client, () => ({ exp: useExportStore(), app: useAppStore() }));
    await app.load();
    await exp.start([4], { suggestedName: 'airports near Lyon' });
    const asked = calls.filter((c) => c.method.startsWith('export.'));
    expect(asked).toEqual([
      { method: 'export.chooseDestination', input: { format: 'gpkg', suggestedName: 'airports near Lyon' } },
      {
        method: 'export.start',
        input: {
          selection: { queryIds: ['4'] },
          format: 'gpkg',
          units: { distance: 'km', short: 'm' },
          destination: '/home/analyst/lyon.gpkg',
          // A GeoPackage carries the entry's look (here the History layer's colour) as its default style.
          project: { basemap: { kind: 'none' }, styles: [{ by: 'layer', colour: LAYER_COLOURS.history }] },
        },
      },
    ]);
    // Closing the dialog starts nothing.
    dialogPath = null;
    exp.dismiss();
    await exp.start([4]);
    expect(calls.filter((c) => c.method === 'export.start')).toHaveLength(1);
  });

  it('sends the units chosen in Settings, for the display field of distances', async () => {
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: { jobId: 'j5', fileName: 'r.csv', downloadPath: '/exports/j5' } }));
    const { exp, units } = withStores(client, () => ({ exp: useExportStore(), units: useUnitsStore() }));
    units.set({ distance: 'nmi', short: 'ft' });
    exp.format = 'csv';
    await exp.start([5]);
    expect(calls[0]).toEqual({ method: 'export.start', input: { selection: { queryIds: ['5'] }, format: 'csv', units: { distance: 'nmi', short: 'ft' } } });
  });

  it('sends a QGIS project the map extent, the basemap the map shows and several entries each in a colour of its own', async () => {
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: { jobId: 'j4', fileName: 'q.zip', downloadPath: '/exports/j4' } }));
    const { exp, map } = withStores(client, () => ({ exp: useExportStore(), map: useMapStore() }));
    map.provideExtent(() => [170, 40, 190, 50]);
    exp.format = 'qfield';
    map.setOnlineTiles(false);
    await exp.start([9, 2]);
    const styles = (calls[0]!.input as { project: { styles: { by: string; colour: string }[] } }).project.styles;
    expect(calls[0]).toEqual({
      method: 'export.start',
      input: {
        selection: { queryIds: ['9', '2'] },
        format: 'qfield',
        units: { distance: 'km', short: 'm' },
        // Online tiles off on the map: the project's offline basemap alone.
        project: { basemap: { kind: 'none' }, extent: [170, 40, 180, 50], styles },
      },
    });
    expect(styles[0]).toEqual({ by: 'layer', colour: LAYER_COLOURS.history });
    expect(styles[1]!.colour).not.toBe(styles[0]!.colour);
    exp.dismiss([9, 2]);
    calls.length = 0;
    map.setOnlineTiles(true);
    await exp.start([9, 2]);
    expect((calls[0]!.input as { project: { basemap: unknown } }).project.basemap).toEqual({ kind: 'online' });
    // "Editable in QField" in the export bar: the project's layers open for editing.
    exp.dismiss([9, 2]);
    calls.length = 0;
    exp.editable = true;
    await exp.start([9, 2]);
    expect((calls[0]!.input as { project: { editable?: boolean } }).project.editable).toBe(true);
  });

  it("sends the legend's classes of the entry the map shows: by rank, by a column with a class turned off, and Other", async () => {
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: { jobId: 'j9', fileName: 'q.zip', downloadPath: '/exports/j9' } }));
    const { exp, map } = withStores(client, () => ({ exp: useExportStore(), map: useMapStore() }));
    const kinds = ['cafe', 'bar', 'cafe', null, 'pub', 'cafe', 'bar', '', 'cafe', 'bar'];
    const feature = (i: number, properties: Record<string, unknown>) => ({ type: 'Feature' as const, id: `f${i}`, geometry: { type: 'Point', coordinates: [i, 0] }, properties });
    map.setActiveLayer('ask');
    map.show('ask', { type: 'FeatureCollection', features: kinds.map((k, i) => feature(i, { name: `n${i}`, attributes: { kind: k } })) }, false);
    const styleSent = async () => {
      calls.length = 0;
      await exp.start([4], { format: 'qfield', layer: 'ask' });
      exp.dismiss([4]);
      return (calls[0]!.input as { project: { styles: unknown[] } }).project.styles;
    };
    const colour = LAYER_COLOURS.ask;

    // Ten results in four rank steps: positions 1-3, 4-5, 6-8, 9-10, darkest first.
    map.setColouring({ by: 'rank' });
    expect(await styleSent()).toEqual([
      {
        by: 'rank',
        colour,
        classes: [
          { first: 1, last: 3, colour: '#8c2d04', shown: true },
          { first: 4, last: 5, colour: '#d94801', shown: true },
          { first: 6, last: 8, colour: '#f16913', shown: true },
          { first: 9, last: 10, colour: '#fdae6b', shown: true },
        ],
      },
    ]);

    // cafe 4, bar 3, no value (null and empty) 2, pub 1: commonest first, no value in grey; bar turned off.
    map.setColouring({ by: 'column', column: 'attributes.kind' });
    map.setClassShown('bar', false);
    expect(await styleSent()).toEqual([
      {
        by: 'column',
        colour,
        column: 'attributes.kind',
        classes: [
          { value: 'cafe', colour: '#e8710a', shown: true },
          { value: 'bar', colour: '#1f77b4', shown: false },
          { value: null, colour: '#6f7780', shown: true },
          { value: 'pub', colour: '#d62728', shown: true },
        ],
        other: null,
      },
    ]);

    // Ten names, one each: the first seven by name get colours, the other three are Other.
    map.setColouring({ by: 'column', column: 'name' });
    const [byName] = (await styleSent()) as [{ classes: { value: string }[]; other: unknown }];
    expect(byName.classes.map((c) => c.value)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
    expect(byName.other).toEqual({ colour: '#6f7780', shown: true });

    // The map drawing a heatmap: the project draws one too.
    map.setDisplay('heatmap');
    expect(await styleSent()).toEqual([{ by: 'heatmap', colour }]);
    map.setDisplay('features');

    // Entries the map does not show (another layer in front, or several) keep their layer's colour.
    map.setActiveLayer('street');
    expect(await styleSent()).toEqual([{ by: 'layer', colour }]);
  });

  it('estimates a project before it is written, from the same options as the export; a pack as the basemap', async () => {
    const estimate = { layers: [{ name: 'q', features: 3 }], features: 3, dataBytes: 90_000, basemapBytes: 40_000, bytes: 138_000 };
    const { client, calls } = scriptedClient(async (method) =>
      method === 'export.estimate' ? { ok: true, value: estimate } : { ok: true, value: { jobId: 'j8', fileName: 'p.zip', downloadPath: '/exports/j8' } },
    );
    const exp = withStores(client, () => useExportStore());
    const opts = { format: 'qfield' as const, layer: 'ask' as const, basemap: { kind: 'pack' as const, path: '/packs/a.gpkg' }, extent: [4, 45, 5, 46] as [number, number, number, number] };
    expect(exp.estimateFor([3], opts)).toBeNull();
    await exp.estimate([3], opts);
    const project = { basemap: { kind: 'pack', path: '/packs/a.gpkg' }, extent: [4, 45, 5, 46], styles: [{ by: 'layer', colour: LAYER_COLOURS.ask }] };
    expect(calls[0]).toEqual({ method: 'export.estimate', input: { selection: { queryIds: ['3'] }, format: 'qfield', project } });
    expect(exp.estimateFor([3], opts)).toEqual({ estimate, error: null });
    // Another basemap is another estimate.
    expect(exp.estimateFor([3], { ...opts, basemap: { kind: 'online' } })).toBeNull();
    await exp.start([3], opts);
    expect(calls[1]).toMatchObject({ method: 'export.start', input: { format: 'qfield', project } });
    // Formats that are no project have nothing to estimate.
    await exp.estimate([3], { format: 'csv' });
    expect(calls).toHaveLength(2);
  });

  it('in the browser host a .qgz is a download like the QField ZIP, with its GeoPackage as a second file', async () => {
    const { client, calls, emit } = scriptedClient(async (method) =>
      method === 'app.info'
        ? { ok: true, value: { name: 'Fieldlens', version: '1', shell: 'browser-host', dataDir: '/d' } }
        : { ok: true, value: { jobId: 'q1', fileName: 'sites.qgz', downloadPath: '/exports/q1' } },
    );
    const { exp, app } = withStores(client, () => ({ exp: useExportStore(), app: useAppStore() }));
    await app.load();
    exp.format = 'qgz';
    await exp.start([3]);
    const sent = calls.find((c) => c.method === 'export.start')!.input as { format: string; destination?: string };
    expect([sent.format, sent.destination]).toEqual(['qgz', undefined]);
    emit('export.progress', { jobId: 'q1', state: 'done', written: 1, total: 1, layer: null, fileName: 'sites.qgz', bytes: 9, downloadPath: '/exports/q1', dataDownloadPath: '/exports/q1/data', error: null });
    expect(exp.jobFor([3])?.dataDownloadPath).toBe('/exports/q1/data');
  });

  it("keeps each selection's job to itself: one answer's download never shows under another", async () => {
    let n = 0;
    const { client, emit } = scriptedClient(async () => {
      n++;
      return { ok: true, value: { jobId: `j${n}`, fileName: `f${n}.gpkg`, downloadPath: `/exports/j${n}` } };
    });
    const exp = withStores(client, () => useExportStore());
    await exp.start([5]);
    const done = { written: 3, total: 3, layer: null, bytes: 10, error: null, state: 'done' as const };
    emit('export.progress', { ...done, jobId: 'j1', fileName: 'f1.gpkg', downloadPath: '/exports/j1' });
    expect(exp.jobFor([5])?.downloadPath).toBe('/exports/j1');
    expect(exp.jobFor([6])).toBeNull();
    await exp.start([6, 2]);
    emit('export.progress', { ...done, jobId: 'j2', fileName: 'f2.gpkg', downloadPath: '/exports/j2' });
    expect(exp.jobFor([2, 6])?.downloadPath).toBe('/exports/j2');
    expect(exp.jobFor([5])?.downloadPath).toBe('/exports/j1');
    exp.dismiss([5]);
    expect(exp.jobFor([5])).toBeNull();
    expect(exp.jobFor([6, 2])?.jobId).toBe('j2');
  });

  it("shows a failed job's error with its code", async () => {
    const { client, emit } = scriptedClient(async () => ({
      ok: true,
      value: { jobId: 'j2', fileName: 'x.gpkg', downloadPath: '/exports/j2' },
    }));
    const exp = withStores(client, () => useExportStore());
    await exp.start([1]);
    emit('export.progress', {
      jobId: 'j2', state: 'failed', written: 0, total: null, layer: null, fileName: 'x.gpkg', bytes: null, downloadPath: null,
      error: { code: 'INTERNAL', message: 'disk full' },
    });
    expect(exp.error).toEqual({ code: 'INTERNAL', message: 'disk full' });
  });
});
