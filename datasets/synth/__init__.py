"""Synthetic photos of revealed MCR winning hands, with YOLO labels and hand/score JSON.

procedural.py (faces drawn with a CJK font) and art.py (FluffyStuff, KDE sets) give face
glyphs; tiles.py turns them into tile sprites with bodies; layout.py lays out a hand;
backgrounds.py draws the table; scene.py renders one photo; effects.py adds light, blur
and noise; generate.py writes a dataset (`fanshot synth`).
"""
