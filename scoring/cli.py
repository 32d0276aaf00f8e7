"""`fanshot score`, `fanshot score-check` and `fanshot score-bench`."""
from __future__ import annotations

import json
import sys

from fanshot.args import positive_int


def register(subparsers) -> None:
    p = subparsers.add_parser("score", help="score a hand typed in the compact notation (or a JSONL file of hands)",
                              description="Score an MCR hand: fanshot score \"123m456m789m123p5p+5p\" --self-drawn")
    p.add_argument("hand", nargs="?", help="hand in the compact notation, or a hand JSON object")
    p.add_argument("--jsonl", metavar="FILE", help="score one hand JSON per line ('-' for stdin); prints one "
                   "score JSON per line; the win-condition flags are every line's defaults (a line's own "
                   "context fields win); not with a hand")
    p.add_argument("--rules", default="mcr", help="rule set name (default mcr; see --list-rules)")
    p.add_argument("--list-rules", action="store_true", help="list the rule sets and exit")
    p.add_argument("--json", action="store_true", help="print the score JSON instead of a table")
    add_context_arguments(p)
    p.add_argument("--flowers", default=None, help="number of flowers, or their codes: 2 or H1,H6")
    p.set_defaults(func=_score_command)

    c = subparsers.add_parser("score-check", help="differential test: our mcr-reference against pymahjonggb")
    c.add_argument("--hands", type=positive_int, default=100_000, help="random winning hands to compare (default 100000)")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--show", type=int, default=5, help="disagreements to print in full")
    c.set_defaults(func=_check_command)

    b = subparsers.add_parser("score-bench", help="hands per second: our scorer against pymahjonggb on one corpus")
    b.add_argument("--hands", type=positive_int, default=20_000)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--repeat", type=positive_int, default=3, help="timed passes over the corpus; the best counts")
    b.set_defaults(func=_bench_command)


def add_context_arguments(parser) -> None:
    """The win-condition flags, one per field of the hand JSON's context: `fanshot score` and
    `fanshot analyze` both take them. `context_from_args` turns them into the context dict."""
    from .lianzhong import FIRST_TURNS
    g = parser.add_argument_group("win conditions (the hand JSON's context)")
    g.add_argument("--seat-wind", metavar="WIND", default=None, help="seat wind E S W N (default E)")
    g.add_argument("--prevalent-wind", metavar="WIND", default=None, help="prevalent (round) wind E S W N (default E)")
    g.add_argument("--self-drawn", action="store_true", help="won by self-draw (自摸)")
    g.add_argument("--last-tile", action="store_true", help="the last tile of the wall (妙手回春 / 海底捞月)")
    g.add_argument("--kong-replacement", action="store_true", help="won on a kong's replacement tile (杠上开花)")
    g.add_argument("--robbing-kong", action="store_true", help="won by robbing a kong (抢杠和)")
    g.add_argument("--fourth-tile", action="store_true", help="the winning tile is the last copy (和绝张)")
    g.add_argument("--dealer", action="store_true", help="the winner is the dealer (庄家); --rules lianzhong")
    g.add_argument("--first-turn", choices=FIRST_TURNS, default=None,
                   help="a win in the first go-around (天和 / 地和 / 人和); --rules lianzhong")
    g.add_argument("--wild-tile", metavar="CODE", default=None,
                   help="the wild tile (混), a code like J1 or one tile like 5m; --rules lianzhong")


def context_from_args(args, rules: str) -> dict:
    """The context fields the flags of `add_context_arguments` set, winds as letters and the wild tile
    as a code; a flag left unset is left out (the rule set's default applies). A bad wind or wild tile,
    a flag the rule set does not read, or an unknown rule set raises HandError."""
    from .notation import wind_letter
    flags = {"self_drawn": args.self_drawn or None, "seat_wind": args.seat_wind,
             "prevalent_wind": args.prevalent_wind, "last_tile": args.last_tile or None,
             "kong_replacement": args.kong_replacement or None, "robbing_kong": args.robbing_kong or None,
             "fourth_tile": args.fourth_tile or None, "dealer": args.dealer or None,
             "first_turn": args.first_turn, "wild_tile": args.wild_tile}
    context = {key: value for key, value in flags.items() if value is not None}
    for key in ("seat_wind", "prevalent_wind"):
        if key in context:
            context[key] = wind_letter(context[key])
    if "wild_tile" in context:
        context["wild_tile"] = _wild_tile(context["wild_tile"])
    _check_rule_set_context(context, rules)
    return context


def _check_rule_set_context(context: dict, rules: str) -> None:
    """Refuse a context flag (--dealer, --first-turn, --wild-tile) that the rule set does not read."""
    from . import HandError, get_ruleset, list_rulesets
    from .hand import BASE_CONTEXT_KEYS
    unread = [key for key in context if key not in BASE_CONTEXT_KEYS and key not in get_ruleset(rules).context_keys]
    if unread:
        key = unread[0]
        readers = [rs["name"] for rs in list_rulesets() if key in rs["context_keys"]]
        raise HandError("unknown_context_key", f"the {rules} rule set has no --{key.replace('_', '-')} (only "
                        f"{', '.join(readers)} reads it): add --rules {readers[0]}")


def _wild_tile(text: str) -> str:
    """One tile, as a code (J1) or in the notation (5m, C)."""
    from . import HandError
    from .notation import parse_tiles
    from .tiles import PLAYING_TILES
    try:
        tiles = parse_tiles(text)
    except HandError:
        tiles = []
    if len(tiles) != 1 or tiles[0] not in PLAYING_TILES:
        raise HandError("invalid_context", f"--wild-tile {text!r} is not one tile: give a code like J1 or B5, or 5p")
    return tiles[0]


def _error(exc) -> int:
    print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
    return 1


def _score_command(args) -> int:
    from . import HandError, list_rulesets, parse_hand, score_hand
    if args.list_rules:
        for rs in list_rulesets():
            print(f"{rs['name']:16} {rs['title']}{'  (partial)' if rs['partial'] else ''}")
        return 0
    if args.jsonl and args.hand:
        print("error: give a hand or --jsonl FILE, not both", file=sys.stderr)
        return 2
    if args.jsonl:
        try:
            context = context_from_args(args, args.rules)
        except HandError as exc:
            return _error(exc)
        return _score_jsonl(args.jsonl, args.rules, context)
    if not args.hand:
        print("error: give a hand, e.g. fanshot score \"123m456m789m123p5p+5p\", or --jsonl FILE", file=sys.stderr)
        return 2
    try:
        context = context_from_args(args, args.rules)
        if args.hand.lstrip().startswith(("{\"", "{ ", "{\n")):
            try:
                hand = json.loads(args.hand)
            except json.JSONDecodeError as exc:
                raise HandError("invalid_hand", f"the hand is not valid JSON: {exc}") from None
            if isinstance(hand, dict):
                hand.setdefault("context", {}).update(context)
        else:
            hand = parse_hand(args.hand, flowers=args.flowers, **context)
        score = score_hand(hand, args.rules)
    except HandError as exc:
        if args.json:
            print(json.dumps(exc.to_json(), ensure_ascii=False))
        return _error(exc)
    if args.json:
        print(json.dumps(score, ensure_ascii=False))
    else:
        print(render_table(score))
    return 0


def render_table(score: dict) -> str:
    """A readable fan table for the terminal."""
    from .tiles import GLYPHS
    lines = [f"{score['text']}   rules: {score['ruleset']}"]
    for fan in score["fans"]:
        pts = fan["points"] * fan["count"]
        mult = f"{fan['points']}×{fan['count']}" if fan["count"] > 1 else f"{fan['points']}"
        tiles = " ".join("".join(GLYPHS[t] for t in group) for group in fan["tiles"])
        zh = fan["name_zh"] + "\u3000" * max(0, 5 - len(fan["name_zh"]))
        lines.append(f"  {zh} {fan['name_en']:34} {mult:>6} = {pts:>3}   {tiles}")
    verdict = "meets" if score["meets_minimum"] else "does NOT meet"
    lines.append(f"  total {score['total']} {score['unit']} ({verdict} the {score['minimum']}-{score['unit']} "
                 "minimum; flowers do not count towards it)")
    return "\n".join(lines)


def _with_default_context(hand, context: dict):
    """A JSONL line's hand with `context` (the flags) under its own context fields; a line that
    is not a hand object, or whose context is not an object, is left for the scorer to refuse."""
    if not context or not isinstance(hand, dict):
        return hand
    own = hand.get("context")
    if own is None:
        own = {}
    if not isinstance(own, dict):
        return hand
    return {**hand, "context": {**context, **own}}


def _score_jsonl(path: str, rules: str, context: dict | None = None) -> int:
    """Score each line's hand; `context` (the win-condition flags) fills the fields a line's own
    context leaves out."""
    from . import HandError, score_hand
    stream = sys.stdin if path == "-" else None
    try:
        stream = stream or open(path, encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    errors = 0
    with stream:
        for lineno, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                try:
                    hand = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise HandError("invalid_hand", f"line {lineno} is not valid JSON: {exc.msg}") from None
                out = score_hand(_with_default_context(hand, context or {}), rules)
            except HandError as exc:
                errors += 1
                out = exc.to_json()
                out["error"]["line"] = lineno
            except Exception as exc:  # never stop early: report the line and go on
                errors += 1
                out = {"error": {"code": "internal_error", "message": f"{type(exc).__name__}: {exc}", "line": lineno}}
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 1 if errors else 0


def _check_command(args) -> int:
    from .differential import run_differential
    report = run_differential(args.hands, args.seed, show=args.show, out=sys.stdout)
    return 0 if report["disagree"] == 0 else 1


def _bench_command(args) -> int:
    from .bench import run_bench
    run_bench(args.hands, args.seed, args.repeat, out=sys.stdout)
    return 0
