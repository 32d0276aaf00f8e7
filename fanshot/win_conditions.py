"""The win-condition flags (`--seat-wind`, `--self-drawn`, ..., `--wild-tile`), declared once for
`fanshot score` and `fanshot analyze`, and the hand JSON context they give."""
from __future__ import annotations


def add_context_arguments(parser) -> None:
    """The win-condition flags, one per field of the hand JSON's context, as an argument group of
    `parser`; `context_from_args` turns them into the context dict."""
    from scoring.lianzhong import FIRST_TURNS
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
    from scoring.notation import wind_letter
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
    from scoring import HandError, get_ruleset, list_rulesets
    from scoring.hand import BASE_CONTEXT_KEYS
    unread = [key for key in context if key not in BASE_CONTEXT_KEYS and key not in get_ruleset(rules).context_keys]
    if unread:
        key = unread[0]
        readers = [rs["name"] for rs in list_rulesets() if key in rs["context_keys"]]
        raise HandError("unknown_context_key", f"the {rules} rule set has no --{key.replace('_', '-')} (only "
                        f"{', '.join(readers)} reads it): add --rules {readers[0]}")


def _wild_tile(text: str) -> str:
    """One tile, as a code (J1) or in the notation (5m, C)."""
    from scoring import HandError
    from scoring.notation import parse_tiles
    from scoring.tiles import PLAYING_TILES
    try:
        tiles = parse_tiles(text)
    except HandError:
        tiles = []
    if len(tiles) != 1 or tiles[0] not in PLAYING_TILES:
        raise HandError("invalid_context", f"--wild-tile {text!r} is not one tile: give a code like J1 or B5, or 5p")
    return tiles[0]
