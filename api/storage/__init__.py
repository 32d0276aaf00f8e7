"""The service's lasting state, in a SQL database (SQLite in the data directory, or PostgreSQL):
the table's score sheets (games, seats, recorded hands with their annotated photos, the payments of
MCR competition play) and the annotated photos of recent analyses (a bounded, expiring cache).

`rules` is the pure part (payments, winds per hand); `store.GameStore` the games; `images` the
photo cache. The API (api/routes/games.py) and `fanshot game` use them. docs/games.md describes it.
"""
