"""Tile-set profiles: the reader learns the look of the player's own tile set (docs/tilesets.md).

- `profile`: TilesetProfile and its file format (ProfileError for anything not a whole profile);
- `learn`: from a layout photo (LAYOUT_ORDER) or from boxes whose tiles are known;
- `apply`: the classifier's probabilities blended with the set's reading;
- `reader`: a detector that reads with a profile (`with_tileset`);
- `store`: the profiles under the data directory (atomic writes).
"""
