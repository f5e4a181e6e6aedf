"""Load layers headless in QGIS and report what QGIS sees (JSON on stdout, last line).

Usage: qgis_load.py PATH LAYER_NAME ...   (an empty name loads the file itself)
"""
import json
import sys

from qgis.core import QgsApplication, QgsVectorLayer, QgsWkbTypes

app = QgsApplication([], False)
app.initQgis()
path = sys.argv[1]
out = []
for name in sys.argv[2:]:
    uri = f"{path}|layername={name}" if name else path
    layer = QgsVectorLayer(uri, name or "layer", "ogr")
    ext = layer.extent()
    color = None
    renderer = layer.renderer()
    if renderer is not None and hasattr(renderer, "symbol") and renderer.symbol() is not None:
        color = renderer.symbol().color().name()
    out.append({
        "name": name,
        "valid": layer.isValid(),
        "count": layer.featureCount(),
        "fields": [f.name() for f in layer.fields()],
        "extent": [ext.xMinimum(), ext.yMinimum(), ext.xMaximum(), ext.yMaximum()],
        "crs": layer.crs().authid(),
        "wkbType": QgsWkbTypes.displayString(layer.wkbType()),
        "color": color,
        "renderer": renderer.type() if renderer is not None else None,
        "categories": {str(c.value()): [c.symbol().color().name(), c.renderState()] for c in renderer.categories()}
        if renderer is not None and renderer.type() == "categorizedSymbol" else None,
        "labels": layer.labelsEnabled(),
        "labelField": layer.labeling().settings().fieldName if layer.labeling() else None,
    })
    # Layers must go before exitQgis() or the interpreter crashes on exit.
    del renderer
    del layer
app.exitQgis()
print(json.dumps(out))
