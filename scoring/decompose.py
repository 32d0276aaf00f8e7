"""Decompositions of a hand into sets and a pair, and the tiles a hand waits on.

Tiles are the reference calculator's integers (suit << 4 | rank: 0x11-0x19 characters,
0x21-0x29 bamboo, 0x31-0x39 dots, 0x41-0x47 E S W N C F P); a pack is
offer << 12 | type << 8 | tile, where offer 0 means concealed (scoring.calculator).
Work that depends only on one suit's tile counts is memoised, so a pattern met once is
not worked out again.
"""
from __future__ import annotations

import itertools

CHOW, PUNG, KONG, PAIR = 1, 2, 3, 4
ALL_TILES = tuple([0x11 + i for i in range(9)] + [0x21 + i for i in range(9)]
                  + [0x31 + i for i in range(9)] + [0x41 + i for i in range(7)])
TE, TS, TW, TN, TC, TF, TP = range(0x41, 0x48)


def make_pack(offer: int, kind: int, tile: int) -> int:
    return offer << 12 | kind << 8 | tile


def pack_type(pack: int) -> int:
    return (pack >> 8) & 0xF


def pack_tile(pack: int) -> int:
    return pack & 0xFF


def pack_melded(pack: int) -> bool:
    return bool(pack & 0x3000)


def is_numbered(t: int) -> bool:
    return not (t & 0xC0)

# ---------------------------------------------------------------- decomposition

def _divide(table, fixed_cnt, step, prev_eigen, work, result) -> bool:
    idx = step + fixed_cnt
    if idx == 4:
        for t in ALL_TILES:
            if table[t] >= 2:
                table[t] -= 2
                if not any(table):
                    table[t] += 2
                    work[4] = (PAIR << 8) | t
                    division = work[:fixed_cnt] + sorted(work[fixed_cnt:4]) + [work[4]]
                    tail = division[fixed_cnt:4]
                    if not any(d[fixed_cnt:4] == tail for d in result):
                        result.append(division)
                    return True
                table[t] += 2
        return False
    ret = False
    for t in ALL_TILES:
        n = table[t]
        if n < 1:
            continue
        if n > 2:
            eigen = t << 16 | t << 8 | t
            if eigen > prev_eigen:
                work[idx] = (PUNG << 8) | t
                table[t] -= 3
                if _divide(table, fixed_cnt, step + 1, eigen, work, result):
                    ret = True
                table[t] += 3
        if t < 0x40 and (t & 0xF) < 8 and table[t + 1] and table[t + 2]:
            eigen = t << 16 | (t + 1) << 8 | (t + 2)
            if eigen >= prev_eigen:
                work[idx] = (CHOW << 8) | (t + 1)
                table[t] -= 1
                table[t + 1] -= 1
                table[t + 2] -= 1
                if _divide(table, fixed_cnt, step + 1, eigen, work, result):
                    ret = True
                table[t] += 1
                table[t + 1] += 1
                table[t + 2] += 1
    return ret


# Decompositions are found suit by suit: a suit's tile counts (9 numbers) decompose into
# sets with or without the pair independently of the other suits, so each suit pattern is
# worked out once and memoised (there are few distinct patterns, and they recur).

_SUIT_MEMO: dict = {}


def _suit_decompositions(base: int, packed: int) -> tuple:
    """All ways one suit's counts (packed a byte a rank) split into sets and at most one pair:
    ((packs...), pair tile or 0)."""
    key = (base, packed)
    found = _SUIT_MEMO.get(key)
    if found is not None:
        return found
    c = [0] + list(packed.to_bytes(9, "little")) + [0, 0]
    out: set = set()

    def rec(sets: tuple, pair: int) -> None:
        r = 1
        while r <= 9 and not c[r]:
            r += 1
        if r > 9:
            out.add((tuple(sorted(sets)), pair))
            return
        t = base | r
        if c[r] >= 3:
            c[r] -= 3
            rec(sets + ((PUNG << 8) | t,), pair)
            c[r] += 3
        if c[r] >= 2 and not pair:
            c[r] -= 2
            rec(sets, t)
            c[r] += 2
        if r <= 7 and c[r + 1] and c[r + 2]:
            c[r] -= 1
            c[r + 1] -= 1
            c[r + 2] -= 1
            rec(sets + ((CHOW << 8) | (t + 1),), pair)
            c[r] += 1
            c[r + 1] += 1
            c[r + 2] += 1

    rec((), 0)
    if len(_SUIT_MEMO) > 500_000:
        _SUIT_MEMO.clear()
    found = _SUIT_MEMO[key] = tuple(out)
    return found


_HONOR_MEMO: dict = {}


def _honor_decompositions(standing) -> tuple:
    """The honours split into pungs and at most one pair (one way or none), memoised by their counts."""
    counts = tuple(standing[TE:TP + 1])
    found = _HONOR_MEMO.get(counts)
    if found is None:
        found = _HONOR_MEMO[counts] = _split_honors(counts)
    return found


def _split_honors(counts: tuple) -> tuple:
    sets = []
    pair = 0
    for t, n in zip(range(TE, TP + 1), counts):
        if n == 3:
            sets.append((PUNG << 8) | t)
        elif n == 2 and not pair:
            pair = t
        elif n:
            return ()
    return ((tuple(sets), pair),)


def _eigen(pack: int) -> int:
    t = pack & 0xFF
    return (t << 16 | t << 8 | t) if (pack >> 8) & 0xF == PUNG else ((t - 1) << 16 | t << 8 | (t + 1))


def divisions_of(standing: list, fixed_packs: list) -> list:
    """All decompositions of the standing tiles (win tile included) into sets and one pair,
    after the fixed packs, in the reference's order (its depth-first search visits the sets
    in increasing order, so its divisions come sorted by their sequence of sets)."""
    parts = [_suit_decompositions(base, _packed(standing, base)) for base in (0x10, 0x20, 0x30)]
    parts.append(_honor_decompositions(standing))
    if not all(parts):
        return []
    found = []
    for a_sets, a_pair in parts[0]:
        for b_sets, b_pair in parts[1]:
            if a_pair and b_pair:
                continue
            for c_sets, c_pair in parts[2]:
                if (a_pair or b_pair) and c_pair:
                    continue
                for d_sets, d_pair in parts[3]:
                    if (a_pair > 0) + (b_pair > 0) + (c_pair > 0) + (d_pair > 0) != 1:
                        continue
                    found.append((a_sets + b_sets + c_sets + d_sets, a_pair | b_pair | c_pair | d_pair))
    if len(found) > 1:
        found = [(sorted(sets, key=_eigen), pair) for sets, pair in found]
        found.sort(key=lambda f: [_eigen(p) for p in f[0]])
    fixed = list(fixed_packs)
    return [fixed + list(sets) + [(PAIR << 8) | pair] for sets, pair in found]


# Waits only need to know whether a suit splits into sets, or into sets and a pair. A suit's
# counts are packed a byte a rank into an int (rank 1 lowest); the answer is memoised for every
# pattern met on the way, so the sub-patterns that recur across hands are worked out once.

_STATUS_MEMO: dict = {0: 1}
_WAITS_MEMO: dict = {}
_CHOW_BITS = 0x010101


def _suit_status(x: int) -> int:
    """Bit 1: the packed suit counts split into sets only; bit 2: into sets and one pair."""
    status = _STATUS_MEMO.get(x)
    if status is not None:
        return status
    shift = ((x & -x).bit_length() - 1) & ~7
    c = (x >> shift) & 0xFF
    status = 0
    if c >= 3:
        status |= _suit_status(x - (3 << shift))
    if c >= 2 and _suit_status(x - (2 << shift)) & 1:
        status |= 2
    if shift <= 48 and (x >> (shift + 8)) & 0xFF and (x >> (shift + 16)) & 0xFF:
        status |= _suit_status(x - (_CHOW_BITS << shift))
    if len(_STATUS_MEMO) > 1_000_000:
        _STATUS_MEMO.clear()
        _STATUS_MEMO[0] = 1
    _STATUS_MEMO[x] = status
    return status


_HONOR_STATUS_MEMO: dict = {}


def _honor_status(counts: tuple) -> int:
    """As _suit_status, for the counts of the seven honours (E S W N C F P); memoised."""
    status = _HONOR_STATUS_MEMO.get(counts)
    if status is None:
        pairs = counts.count(2)
        status = 0 if any(n and n != 2 and n != 3 for n in counts) else 1 if pairs == 0 else 2 if pairs == 1 else 0
        _HONOR_STATUS_MEMO[counts] = status
    return status


def _honor_waits(counts: tuple, need: int) -> tuple:
    """The honours whose tile turns `counts` into a status with a bit of `need` (memoised)."""
    key = (counts, need)
    found = _HONOR_WAITS_MEMO.get(key)
    if found is None:
        found = _HONOR_WAITS_MEMO[key] = tuple(
            TE + i for i, n in enumerate(counts)
            if n and _honor_status(counts[:i] + (n + 1,) + counts[i + 1:]) & need)
    return found


_HONOR_WAITS_MEMO: dict = {}


def _needs(status: tuple) -> tuple:
    """For each part (three suits, honours) given the statuses of all four: what a tile added to that
    part must make of it (bit 1: sets only, bit 2: sets and the pair) for the whole hand to win."""
    needs = []
    for i in range(4):
        others = status[:i] + status[i + 1:]
        # a tile completes part i into sets and the pair when the other parts are sets only,
        # or into sets only when exactly one other part holds the pair
        need = 2 if others[0] & 1 and others[1] & 1 and others[2] & 1 else 0
        for j in range(3):
            if others[j] & 2 and others[(j + 1) % 3] & 1 and others[(j + 2) % 3] & 1:
                need |= 1
                break
        needs.append(need)
    return tuple(needs)


_NEEDS = {status: _needs(status) for status in itertools.product(range(4), repeat=4)}


def _packed(table, base: int) -> int:
    """One suit's counts (ranks 1-9 at base+1..base+9), a byte a rank, rank 1 lowest."""
    return int.from_bytes(bytes(table[base + 1:base + 10]), "little")


def _suit_waits(x: int, need: int) -> tuple:
    """The ranks (0-8) whose tile turns packed suit x into a status with a bit of `need` (memoised)."""
    key = (x, need)
    found = _WAITS_MEMO.get(key)
    if found is None:
        near = x | (x >> 8) | (x << 8)      # ranks holding a tile or next to one
        found = tuple(r for r in range(9) if (near >> (8 * r)) & 0xFF and _suit_status(x + (1 << (8 * r))) & need)
        if len(_WAITS_MEMO) > 500_000:
            _WAITS_MEMO.clear()
        _WAITS_MEMO[key] = found
    return found


def waiting_tiles(table: list, tile_cnt: int) -> set:
    """The tiles that would complete `table` (tile_cnt tiles, the winning tile removed), read
    as the reference reads waits: any regular completion, plus the 七对 wait for 13 tiles."""
    waiting: set = set()
    if tile_cnt == 13:
        counts = [table[t] for t in ALL_TILES]
        if counts.count(2) + counts.count(3) + 2 * counts.count(4) == 6:
            for t in ALL_TILES:
                if table[t] == 1 or table[t] == 3:
                    waiting.add(t)
                    break
    packed = (_packed(table, 0x10), _packed(table, 0x20), _packed(table, 0x30))
    honors = tuple(table[TE:TP + 1])
    status = (_suit_status(packed[0]), _suit_status(packed[1]), _suit_status(packed[2]), _honor_status(honors))
    for i, need in enumerate(_NEEDS[status]):
        if not need:
            continue
        if i == 3:
            waiting.update(_honor_waits(honors, need))
        else:
            base = 0x11 + 0x10 * i
            for r in _suit_waits(packed[i], need):
                waiting.add(base + r)
    return waiting


def is_unique_waiting(standing: list, tile_cnt: int, win_tile: int) -> bool:
    """Whether the hand before the win waited on one tile kind only (独听)."""
    table = list(standing)
    table[win_tile] -= 1
    return len(waiting_tiles(table, tile_cnt)) == 1


def clear_memos() -> None:
    """Forget the memoised suit patterns."""
    _SUIT_MEMO.clear()
    _STATUS_MEMO.clear()
    _STATUS_MEMO[0] = 1
    _WAITS_MEMO.clear()
    _HONOR_MEMO.clear()
    _HONOR_STATUS_MEMO.clear()
    _HONOR_WAITS_MEMO.clear()
