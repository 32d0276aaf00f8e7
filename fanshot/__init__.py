"""Fanshot: score a Chinese Official Mahjong hand from a photo."""
__version__ = "0.1.0"
