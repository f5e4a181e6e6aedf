"""Open a QGIS project headless, report what QGIS sees and render it (JSON on stdout, last line).

Usage: qgis_project.py PROJECT PNG WIDTH HEIGHT
Reports every layer (validity, count, fields, renderer with its categories or ranges, labels, read-only, abstract), the project's
CRS and view extent, the layers' extents in the project CRS, and the colour of the rendered image at
every vector feature's position (points: the point; lines: their middle; areas: a point inside). Only the
layers switched on in the layers panel are drawn, over the project's background, as QGIS opens it. The basemap
alone (rasters and the tables of the "Basemap" group) is rendered too and its colour reported at the corners of
the image; every label QGIS placed is reported with its layer and text.
"""
import json
import sys
import time

from qgis.core import (QgsApplication, QgsCoordinateTransform, QgsMapRendererParallelJob,
                       QgsMapSettings, QgsPointXY, QgsProject, QgsRectangle, QgsWkbTypes)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor

app = QgsApplication([], False)
app.initQgis()
path, png, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
project = QgsProject.instance()
ok = project.read(path)
crs = project.crs()
view = project.viewSettings().defaultViewExtent()
order = [l.name() for l in project.layerTreeRoot().layerOrder()]
layers = project.layerTreeRoot().layerOrder()
shown = set(l.id() for l in project.layerTreeRoot().checkedLayers())
group = project.layerTreeRoot().findGroup("Basemap")
in_basemap = set(l.layerId() for l in group.findLayers()) if group else set()
background = project.backgroundColor()


def colour(c):
    return [c.red(), c.green(), c.blue(), c.alpha()]


timings = []


def render(which, out):
    s = QgsMapSettings()
    s.setLayers(which)
    s.setDestinationCrs(crs)
    s.setOutputSize(QSize(width, height))
    s.setOutputDpi(96)
    s.setBackgroundColor(background)
    s.setExtent(QgsRectangle(view))
    job = QgsMapRendererParallelJob(s)
    started = time.monotonic()
    job.start()
    job.waitForFinished()
    timings.append(round((time.monotonic() - started) * 1000))
    img = job.renderedImage()
    labels = job.takeLabelingResults()
    placed = []
    if labels:
        for lp in labels.allLabels():
            placed.append({"layer": lp.layerID, "text": lp.labelText})
    if out:
        img.save(out, "PNG")
    return s, img, placed


visible = [l for l in layers if l.id() in shown]
settings, image, placed = render(visible, png)
m2p = settings.mapToPixel()
base_layers = [l for l in visible if l.type() != l.VectorLayer or l.id() in in_basemap]
_, base_image, _ = render(base_layers, None)


def pixel(img, x, y):
    if 0 <= x < img.width() and 0 <= y < img.height():
        return colour(QColor(img.pixel(int(x), int(y))))
    return None


report = []
for layer in layers:
    entry = {
        "name": layer.name(),
        "valid": layer.isValid(),
        "type": "vector" if layer.type() == layer.VectorLayer else "raster",
        "source": layer.source(),
        "provider": layer.providerType(),
        "abstract": layer.metadata().abstract(),
        "readOnly": layer.readOnly(),
        "id": layer.id(),
        "shownInPanel": layer.id() in shown,
        "basemap": layer.id() in in_basemap,
    }
    if layer.type() == layer.VectorLayer:
        r = layer.renderer()
        entry["count"] = layer.featureCount()
        entry["fields"] = [f.name() for f in layer.fields()]
        entry["renderer"] = r.type()
        if r.type() == "singleSymbol":
            entry["colours"] = {"": r.symbol().color().name()}
        elif r.type() == "categorizedSymbol":
            entry["attr"] = r.classAttribute()
            entry["colours"] = {str(c.value()): c.symbol().color().name() for c in r.categories()}
            entry["shown"] = {str(c.value()): c.renderState() for c in r.categories()}
        elif r.type() == "graduatedSymbol":
            entry["attr"] = r.classAttribute()
            entry["ranges"] = [[g.lowerValue(), g.upperValue(), g.symbol().color().name(), g.renderState()] for g in r.ranges()]
        entry["labels"] = layer.labelsEnabled()
        entry["labelField"] = layer.labeling().settings().fieldName if layer.labeling() else None
        xf = QgsCoordinateTransform(layer.crs(), crs, project)
        ext = xf.transformBoundingBox(layer.extent())
        entry["extent"] = [ext.xMinimum(), ext.yMinimum(), ext.xMaximum(), ext.yMaximum()]
        samples = []
        for f in layer.getFeatures():
            g = f.geometry()
            if g.type() == QgsWkbTypes.PointGeometry:
                p = g.asPoint() if not g.isMultipart() else g.asMultiPoint()[0]
            elif g.type() == QgsWkbTypes.LineGeometry:
                p = g.interpolate(g.length() / 2).asPoint()
            else:
                # Inside a convex area near its corner: clear of the label at its middle.
                b = g.boundingBox()
                p = QgsPointXY(b.xMinimum() + 0.1 * b.width(), b.yMinimum() + 0.1 * b.height())
            q = xf.transform(p)
            px = m2p.transform(q)
            samples.append({
                "id": f["feature_id"] if "feature_id" in entry["fields"] else None,
                "value": {n: (None if f[n] is None else str(f[n])) for n in entry["fields"] if n in ("kind",)},
                "pixel": [px.x(), px.y()],
                "colour": pixel(image, px.x(), px.y()),
            })
        entry["samples"] = samples if layer.id() not in in_basemap else []
        del r
    else:
        entry["extent"] = [layer.extent().xMinimum(), layer.extent().yMinimum(), layer.extent().xMaximum(), layer.extent().yMaximum()]
    report.append(entry)

corners = [[5, 5], [width - 6, 5], [5, height - 6], [width - 6, height - 6]]
out = {
    "read": ok,
    "crs": crs.authid(),
    "view": [view.xMinimum(), view.yMinimum(), view.xMaximum(), view.yMaximum()],
    "visible": [settings.visibleExtent().xMinimum(), settings.visibleExtent().yMinimum(),
                settings.visibleExtent().xMaximum(), settings.visibleExtent().yMaximum()],
    "order": order,
    "title": project.metadata().title(),
    "abstract": project.metadata().abstract(),
    "layers": report,
    "basemapCorners": [pixel(base_image, x, y) for x, y in corners],
    "blank": base_image.isNull(),
    "background": background.name(),
    "labels": placed,
    "renderMs": timings[0],
}
del layers, visible, base_layers, settings, image, base_image, m2p
project.clear()
app.exitQgis()
print(json.dumps(out))
