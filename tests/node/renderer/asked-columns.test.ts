import { describe, expect, it } from 'vitest';
import { askedColumns } from '../../../renderer/src/lib/table';

describe('the columns of the figure a question asked about', () => {
  it('are the offered columns its order or measurement names', () => {
    const offered = ['country', 'capacity', 'area_km2', 'population', 'count'];
    expect(askedColumns({ order: 'largest capacity first' }, offered)).toEqual(['capacity']);
    expect(askedColumns({ measurement: 'count per country' }, offered)).toEqual(['country', 'count']);
    expect(askedColumns({ measurement: 'area' }, offered)).toEqual(['area_km2']);
  });

  it('are none without a reading, or where it names no column', () => {
    expect(askedColumns(null, ['capacity'])).toEqual([]);
    expect(askedColumns({ order: 'nearest first' }, ['capacity', 'population'])).toEqual([]);
  });
});
