"""One router per resource: health, rules, score, analyze, detect, images."""
