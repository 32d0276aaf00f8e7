"""One router per resource: health, rules, score, analyze, detect, images; the labelling tool's
page and API (label) and its Label Studio backend (labelstudio)."""
