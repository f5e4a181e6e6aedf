import { describe, expect, it } from 'vitest';
import { parseOtherTags, unpackOtherTags, unprefixGpxTags } from '../../../electron/local-service/layers/readers/other-tags';

describe("GDAL's packed OSM tags", () => {
  it('reads every pair, with \\" and \\\\ escapes and separators inside values', () => {
    // As ogr2ogr writes the tags amenity=cafe and description=say "hi" \ back => x, y.
    const text = String.raw`"amenity"=>"cafe","description"=>"say \"hi\" \\ back => x, y"`;
    expect(parseOtherTags(text)).toEqual({ amenity: 'cafe', description: 'say "hi" \\ back => x, y' });
  });

  it('a text cut short keeps the pairs before the cut; a text in another form is no tags', () => {
    expect(parseOtherTags('"amenity"=>"pharmacy","opening_hours"=>"Mo-Fr 08:0')).toEqual({ amenity: 'pharmacy' });
    expect(parseOtherTags('just a note')).toBeNull();
    expect(parseOtherTags('')).toBeNull();
  });

  it('unpacks into the columns without overwriting one that has a value', () => {
    expect(unpackOtherTags({ osm_id: '7', name: 'Eck', highway: null, other_tags: '"name"=>"Other","highway"=>"bus_stop","shelter"=>"yes"' })).toEqual({
      osm_id: '7',
      name: 'Eck',
      highway: 'bus_stop',
      shelter: 'yes',
    });
    const plain = { other_tags: 'free text', name: 'x' };
    expect(unpackOtherTags(plain)).toBe(plain);
  });

  it('GPX fields with the ogr_ prefix become the tag, unless the tag is there already', () => {
    expect(unprefixGpxTags({ name: 'A', ogr_amenity: 'pharmacy', ogr_name: 'B', ogr_: 'kept' })).toEqual({ name: 'A', amenity: 'pharmacy', ogr_name: 'B', ogr_: 'kept' });
  });
});
