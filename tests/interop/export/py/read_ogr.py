"""Dump every layer of a dataset as GDAL reads it: fields, counts, extent, features (JSON on stdout).

Usage: read_ogr.py PATH [OPEN_OPTION ...]
"""
import json
import sys

from osgeo import gdal, ogr

gdal.UseExceptions()
ds = gdal.OpenEx(sys.argv[1], gdal.OF_VECTOR | gdal.OF_READONLY, open_options=sys.argv[2:])
out = {}
for i in range(ds.GetLayerCount()):
    lyr = ds.GetLayer(i)
    defn = lyr.GetLayerDefn()
    fields = []
    for j in range(defn.GetFieldCount()):
        fd = defn.GetFieldDefn(j)
        fields.append({
            "name": fd.GetName(),
            "type": ogr.GetFieldTypeName(fd.GetType()),
            "subtype": ogr.GetFieldSubTypeName(fd.GetSubType()),
        })
    feats = []
    for f in lyr:
        props = {}
        for j, fd in enumerate(fields):
            if not f.IsFieldSetAndNotNull(j):
                props[fd["name"]] = None
                continue
            t = defn.GetFieldDefn(j).GetType()
            if t in (ogr.OFTInteger, ogr.OFTInteger64):
                props[fd["name"]] = f.GetFieldAsInteger64(j)
            elif t == ogr.OFTReal:
                props[fd["name"]] = f.GetFieldAsDouble(j)
            else:
                props[fd["name"]] = f.GetFieldAsString(j)
        g = f.GetGeometryRef()
        feats.append({
            "fid": f.GetFID(),
            "geometry": json.loads(g.ExportToJson(["SIGNIFICANT_FIGURES=17"])) if g is not None else None,
            "properties": props,
        })
    has_geom = lyr.GetGeomType() != ogr.wkbNone
    out[lyr.GetName()] = {
        "geometryType": ogr.GeometryTypeToName(lyr.GetGeomType()),
        "count": lyr.GetFeatureCount(),
        "fields": fields,
        "extent": list(lyr.GetExtent()) if has_geom and feats else None,
        "features": feats,
    }
print(json.dumps(out))
