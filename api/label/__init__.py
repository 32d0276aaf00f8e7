"""The labelling tool (`fanshot label DIR`): a folder's labels as YOLO txt, pre-labelled by the
detector, exported with datasets.formats, and a Label Studio ML backend. Its HTTP routes are
api/routes/label.py and api/routes/labelstudio.py."""
