"""`fanshot score`, `fanshot score-check` and `fanshot score-bench`."""
from __future__ import annotations

import json
import sys

from fanshot.args import positive_int
from fanshot.win_conditions import add_context_arguments, context_from_args


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


def _error(exc) -> int:
    print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
    return 1


def _score_command(args) -> int:
    from scoring import HandError, list_rulesets, parse_hand, score_hand
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
    from scoring.tiles import GLYPHS
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
    from scoring import HandError, score_hand
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
    from scoring.differential import run_differential
    report = run_differential(args.hands, args.seed, show=args.show, out=sys.stdout)
    return 0 if report["disagree"] == 0 else 1


def _bench_command(args) -> int:
    from scoring.bench import run_bench
    run_bench(args.hands, args.seed, args.repeat, out=sys.stdout)
    return 0
