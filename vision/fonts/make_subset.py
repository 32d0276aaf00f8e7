"""Make the small CJK font the annotated image is drawn with.

    python vision/fonts/make_subset.py [--source TTC] [--text FILE ...]

Subsets Noto Sans CJK SC Bold (SIL Open Font License 1.1, see OFL.txt; Debian's
fonts-noto-cjk puts it in /usr/share/fonts/opentype/noto/) to the glyphs the
annotation draws: printable ASCII, the tile names, the words of the fan panel,
every fan name of every rule set the scorer knows (scoring.list_rulesets) and
the Chinese warnings and errors (vision/messages_zh.py) and the characters of
any --text files. The subset is renamed (the OFL asks a
modified font not to keep the original's name) and written next to this file.
Needs fonttools (the dev extra).
"""
from __future__ import annotations

import argparse
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "FanshotCJK-Bold.otf"
SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"
MESSAGES = HERE.parent / "messages_zh.py"  # the warnings and errors drawn in Chinese
FAMILY = "Fanshot CJK Subset"

# Tile names, numerals and the words the annotation draws besides fan names.
EXTRA = (
    "一二三四五六七八九十万条索饼筒东南西北中发發白春夏秋冬梅兰竹菊背"
    "番分合计总共和牌自摸点炮未成低信度张杠碰吃暗明花风圈门胡"
    "×·—–、，。：；（）【】《》“”‘’！？…～+-−×÷=≥≤°"
)


def fan_text() -> str:
    sys.path.insert(0, str(HERE.parent.parent))
    try:
        import scoring
    except ImportError:
        return ""
    if not hasattr(scoring, "list_rulesets"):
        return ""
    parts = []
    for ruleset in scoring.list_rulesets():
        parts.append(str(ruleset.get("title", "")))
        for fan in ruleset.get("fans", []):
            parts.append(str(fan.get("name_zh", "")) + str(fan.get("name_en", "")))
    return "".join(parts)


def characters(text_files: list[str]) -> str:
    text = "".join(chr(c) for c in range(0x20, 0x7F)) + EXTRA + fan_text() + MESSAGES.read_text(encoding="utf-8")
    for path in text_files:
        text += pathlib.Path(path).read_text(encoding="utf-8")
    return "".join(sorted({c for c in text if c.isprintable()}))


def main(argv=None) -> int:
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=SOURCE)
    parser.add_argument("--text", nargs="*", default=[], help="files whose characters to keep too")
    args = parser.parse_args(argv)

    collection = TTCollection(args.source)
    font = next(f for f in collection.fonts if f["name"].getDebugName(4) == "Noto Sans CJK SC Bold")
    chars = characters(args.text)
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 4:
            names.setName(FAMILY + " Bold", 4, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName("FanshotCJKSubset-Bold", 6, record.platformID, record.platEncID, record.langID)
    font.save(str(OUT))
    print(f"{OUT.name}: {len(chars)} characters, {OUT.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
