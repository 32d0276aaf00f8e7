"""The table's score sheet, kept: games, seats, recorded hands (with their annotated photos) and the
payments of MCR competition play, in a SQL database (SQLite in the data directory, or PostgreSQL).

`rules` is the pure part (payments, winds per hand); `store.GameStore` the lasting part; the API
(api/routes/games.py) and `fanshot game` both use them. docs/games.md describes the whole.
"""
