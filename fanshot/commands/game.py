"""`fanshot game new|show|record|edit|undo|end|export`: the table's score sheet from the command line,
in the same database as the service (FANSHOT_DATA_DIR, or FANSHOT_DATABASE_URL): docs/games.md."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from fanshot.args import non_negative_int
from vision.atomic_file import write_atomically


def register(subparsers) -> None:
    p = subparsers.add_parser("game", help="keep a table's score sheet: start a game, record hands, export",
                              description="The score sheet of an MCR game, in the service's database "
                              "(FANSHOT_DATA_DIR, or FANSHOT_DATABASE_URL for PostgreSQL).")
    sub = p.add_subparsers(dest="game_command", metavar="ACTION", required=True)

    new = sub.add_parser("new", help="start a game; prints its code")
    new.add_argument("--players", default="E,S,W,N", help="four names, seat 0 first, comma-separated (default E,S,W,N)")
    new.add_argument("--rules", default="mcr", help="mcr, mcr-reference or lianzhong (default mcr)")
    new.add_argument("--dealer", default="0", help="the first dealer: a name or a seat 0-3 (default 0)")
    new.set_defaults(func=_new)

    show = sub.add_parser("show", help="print a game's sheet")
    show.add_argument("code")
    show.set_defaults(func=_show)

    for name, text in (("record", "record the next hand"), ("edit", "record hand NUMBER anew")):
        r = sub.add_parser(name, help=text, description="A win: --winner P with --self-drawn or --from P, and "
                           "--total N or --hand TEXT (scored with the game's winds). Or --draw, or --false-win P. "
                           "P is a name or a seat 0-3.")
        r.add_argument("code")
        if name == "edit":
            r.add_argument("number", type=non_negative_int, help="the hand's number (1-16)")
        ended = r.add_mutually_exclusive_group(required=True)
        ended.add_argument("--winner", metavar="P", help="who won")
        ended.add_argument("--draw", action="store_true", help="a drawn hand (荒庄): nobody pays")
        ended.add_argument("--false-win", metavar="P", help="who declared a false win (错和)")
        how = r.add_mutually_exclusive_group()
        how.add_argument("--self-drawn", action="store_true", help="the winner drew the winning tile")
        how.add_argument("--from", dest="discarder", metavar="P", help="who discarded the winning tile")
        what = r.add_mutually_exclusive_group()
        what.add_argument("--total", type=non_negative_int, help="the hand's total fan, typed")
        what.add_argument("--hand", help="the hand: compact notation (\"123m456m789m123p5p+5p\") or hand JSON")
        r.add_argument("--photo", metavar="JPEG", help="a photo of the hand to keep with it")
        r.add_argument("--version", type=non_negative_int, help="the sheet version you saw (default: the latest)")
        r.set_defaults(func=_record if name == "record" else _edit)

    for name, text in (("undo", "remove the last hand"), ("end", "end the game before its 16 hands")):
        u = sub.add_parser(name, help=text)
        u.add_argument("code")
        u.add_argument("--version", type=non_negative_int, help="the sheet version you saw (default: the latest)")
        u.set_defaults(func=_undo if name == "undo" else _end)

    e = sub.add_parser("export", help="write a game's sheet as CSV or JSON")
    e.add_argument("code")
    e.add_argument("--format", choices=("csv", "json"), default="csv")
    e.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of stdout")
    e.set_defaults(func=_export)

    for name, parser in sub.choices.items():
        if name != "export":
            parser.add_argument("--json", action="store_true", help="print the sheet JSON")


def _store():
    from api.settings import data_dir_of, settings_for_command
    from api.storage.store import GameStore

    settings = settings_for_command("fanshot game")
    return GameStore.open(data_dir_of(settings), settings.database_url)


def _run(args, action) -> int:
    """`action(store)` -> a sheet, printed; a refused request or an unreachable database: its message, 1."""
    from sqlalchemy.exc import SQLAlchemyError

    from api.storage.errors import GameError

    store = None
    try:
        store = _store()
        sheet = action(store)
    except GameError as exc:
        print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        print(f"error [database]: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    finally:
        if store is not None:
            store.close()
    if sheet is not None:
        print(json.dumps(sheet, ensure_ascii=False, indent=1) if getattr(args, "json", False) else render_sheet(sheet))
    return 0


def _seat(sheet: dict, who: str | None, role: str) -> int | None:
    """A player named by name (any case) or seat number."""
    from api.storage.errors import GameError

    if who is None:
        return None
    if who.strip().isdigit():
        return int(who)
    for player in sheet["players"]:
        if player["name"].casefold() == who.strip().casefold():
            return player["seat"]
    names = ", ".join(p["name"] for p in sheet["players"])
    raise GameError(422, "wrong_seat", f"no player {who!r} to be the {role} (players: {names}; or a seat 0-3)")


def _entry(args, sheet: dict):
    from api.storage.entries import HandEntry
    from api.storage.errors import GameError

    photo = Path(args.photo).read_bytes() if args.photo else None
    if args.draw or args.false_win:
        if args.self_drawn or args.discarder or args.total is not None or args.hand:
            raise GameError(422, "no_hand_without_win", "--self-drawn, --from, --total and --hand go with --winner")
        if args.draw:
            return HandEntry("draw", photo=photo)
        return HandEntry("false_win", offender=_seat(sheet, args.false_win, "offender"), photo=photo)
    if not args.self_drawn and not args.discarder:
        raise GameError(422, "self_drawn_or_discarder", "say --self-drawn or --from P (who discarded)")
    return HandEntry("win", winner=_seat(sheet, args.winner, "winner"),
                     discarder=_seat(sheet, args.discarder, "discarder"), total=args.total,
                     hand=_hand(args.hand) if args.hand else None, photo=photo)


def _hand(text: str) -> dict:
    import scoring
    from api.storage.errors import GameError

    try:
        if text.lstrip().startswith("{"):
            return json.loads(text)
        return scoring.parse_hand(text)
    except json.JSONDecodeError as exc:
        raise GameError(422, "invalid_hand", f"the hand is not valid JSON: {exc}") from None
    except scoring.HandError as exc:
        raise GameError(422, exc.code, exc.message) from None


def _new(args) -> int:
    def action(store):
        names = [n.strip() for n in args.players.split(",")]
        dealer = args.dealer.strip()
        first = int(dealer) if dealer.isdigit() else _seat({"players": [{"seat": i, "name": n} for i, n in
                                                                         enumerate(names)]}, dealer, "dealer")
        return store.create(names, args.rules, first)
    return _run(args, action)


def _show(args) -> int:
    return _run(args, lambda store: store.sheet(args.code))


def _record(args) -> int:
    def action(store):
        sheet = store.sheet(args.code)
        version = sheet["version"] if args.version is None else args.version
        return store.record(args.code, version, _entry(args, sheet))
    return _run(args, action)


def _edit(args) -> int:
    def action(store):
        sheet = store.sheet(args.code)
        version = sheet["version"] if args.version is None else args.version
        return store.edit(args.code, args.number, version, _entry(args, sheet))
    return _run(args, action)


def _undo(args) -> int:
    def action(store):
        version = store.sheet(args.code)["version"] if args.version is None else args.version
        return store.undo(args.code, version)
    return _run(args, action)


def _end(args) -> int:
    def action(store):
        version = store.sheet(args.code)["version"] if args.version is None else args.version
        return store.end(args.code, version)
    return _run(args, action)


def _export(args) -> int:
    from api.storage.sheet import sheet_csv

    def action(store):
        sheet = store.sheet(args.code)
        text = sheet_csv(sheet) if args.format == "csv" else json.dumps(sheet, ensure_ascii=False, indent=1) + "\n"
        if args.output:
            write_atomically(Path(args.output), text)
            print(f"wrote {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return None
    return _run(args, action)


def render_sheet(sheet: dict) -> str:
    """The sheet for a terminal: one line per hand, each player's payment and running score."""
    names = [p["name"] for p in sheet["players"]]
    width = max(8, *(len(n) for n in names))
    state = ("ended early" if sheet["ended_early"] else "over") if sheet["over"] else \
        f"next: hand {sheet['next']['number']}, {sheet['next']['prevalent_wind']} round, " \
        f"{names[sheet['next']['dealer']]} deals"
    lines = [f"game {sheet['code']}  rules {sheet['rules']}  version {sheet['version']}  ({state})",
             f"{'hand':>4} {'wind':4} {'result':28} " + " ".join(f"{n:>{width}}" for n in names)]

    def who(seat):
        return names[seat] if seat is not None else "?"

    for h in sheet["hands"]:
        if h["outcome"] == "win":
            result = f"{who(h['winner'])} {h['total']} " + ("self-drawn" if h["self_drawn"] else f"from {who(h['discarder'])}")
        elif h["outcome"] == "false_win":
            result = f"false win by {who(h['offender'])}"
        else:
            result = "drawn"
        cells = " ".join(f"{f'{d:+d} ({s})':>{width}}" for d, s in zip(h["payments"], h["scores"]))
        lines.append(f"{h['number']:>4} {h['prevalent_wind']:4} {result[:28]:28} {cells}")
    lines.append(f"{'':>4} {'':4} {'total':28} " + " ".join(f"{t:>{width}}" for t in sheet["totals"]))
    return "\n".join(lines)
