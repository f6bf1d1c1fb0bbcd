#!/usr/bin/env python3
"""Chinese text takes Chinese punctuation: the comma, colon, semicolon, question and exclamation
marks and parentheses next to a Chinese character become their full-width forms (，：；？！（）),
and so does a mark between a filled-in value or a Latin word and Latin words that Chinese follows
("{serial},GPU 等待", "e1;s2 等待"); the blanks around them go. Between two Latin characters (file.py:12, 1,000, a,b) and inside
{placeholders} nothing changes. Reads every "zh" section of assets/ui.json, assets/analyzer.json
and assets/labs/*.json.

  scripts/zh_punctuation.py --check   # exit 1 and list each string that still needs it (CTest)
  scripts/zh_punctuation.py --fix     # rewrite the files
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ["assets/ui.json", "assets/analyzer.json"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "assets/labs/*.json")))
FULL = {",": "，", ":": "：", ";": "；", "?": "？", "!": "！", "(": "（", ")": "）"}


def is_cjk(c):
    return bool(c) and ("\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef")


def neighbour(text, i, step):
    """The nearest character from i in direction step, skipping blanks ('' at an end)."""
    i += step
    while 0 <= i < len(text) and text[i] == " ":
        i += step
    return text[i] if 0 <= i < len(text) else ""


def matching_parens(text):
    """Pairs (open, close) of parentheses outside {placeholders}."""
    pairs, stack, depth = [], [], 0
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and c == "(":
            stack.append(i)
        elif depth == 0 and c == ")" and stack:
            pairs.append((stack.pop(), i))
    return pairs


def latin_word_then_cjk(text, i):
    """From i: blanks, one Latin word (GPU, cudaFree, trace) and blanks, then Chinese. A value
    filled in before the mark and a word after it ("{serial},GPU 等待") are one Chinese clause."""
    while i < len(text) and text[i] == " ":
        i += 1
    start = i
    while i < len(text) and text[i].isascii() and (text[i].isalnum() or text[i] in "_."):
        i += 1
    if i == start:
        return False
    while i < len(text) and text[i] == " ":
        i += 1
    return i < len(text) and is_cjk(text[i])


def latin_words_then_cjk(text, i):
    """From i: Latin words, numbers and blanks ("GPU 1", "s2", "dense_us"), the first of them not a
    number, then Chinese. A mark between two Latin words is Chinese punctuation when Chinese
    follows the second ("e1;s2 等待", "serial:GPU 1 的"); a line number or a figure after it is not
    ("train.py:12 行", "1,000 个")."""
    while i < len(text) and text[i] == " ":
        i += 1
    start = i
    while i < len(text) and text[i].isascii() and (text[i].isalnum() or text[i] in "_.-"):
        i += 1
    if i == start or text[start:i].replace(".", "").isdigit():
        return False
    while i < len(text) and text[i].isascii() and (text[i].isalnum() or text[i] in "_.- "):
        if text[i] == "-" and text[i - 1] == " ":  # an option: a command line ("-t cuda,nvtx -o f")
            return False
        i += 1
    return i < len(text) and is_cjk(text[i])


def fix(text):
    """Until nothing changes: a mark made full-width can decide its neighbour's."""
    while True:
        fixed = fix_once(text)
        if fixed == text:
            return fixed
        text = fixed


def fix_once(text):
    chars = list(text)
    for a, b in matching_parens(text):
        # A call (wait_stream({s}), f(x)) keeps its parentheses unless Chinese is inside them.
        call = a > 0 and (text[a - 1].isascii() and (text[a - 1].isalnum() or text[a - 1] in "_}.]"))
        inside = is_cjk(neighbour(text, a, 1)) or is_cjk(neighbour(text, b, -1))
        outside = is_cjk(neighbour(text, a, -1)) or (is_cjk(neighbour(text, b, 1)) and not call)
        if inside or outside:
            chars[a], chars[b] = "（", "）"
    depth = 0
    for i, c in enumerate(text):
        depth += c == "{"
        depth -= c == "}" and depth > 0
        if depth or c not in ",:;?!":
            continue
        before, after = neighbour(text, i, -1), neighbour(text, i, 1)
        if c == ":" and after == "/":  # a URL
            continue
        latin_before = before == "}" or (before.isascii() and (before.isalnum() or before in "_)"))
        if is_cjk(before) or is_cjk(after) or (before == "}" and latin_word_then_cjk(text, i + 1)) or (
                latin_before and c in ",:;" and latin_words_then_cjk(text, i + 1)):
            chars[i] = FULL[c]
    out = "".join(chars)
    # No blanks around full-width punctuation.
    for mark in "，：；？！（）":
        out = out.replace(" " + mark, mark).replace(mark + " ", mark)
    return out


def walk(node, visit):
    if isinstance(node, dict):
        for key, value in node.items():
            node[key] = walk(value, visit)
        return node
    if isinstance(node, list):
        return [walk(v, visit) for v in node]
    return visit(node) if isinstance(node, str) else node


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("--check", "--fix"):
        sys.exit(__doc__)
    left = []
    for name in FILES:
        path = os.path.join(ROOT, name)
        data = json.load(open(path, encoding="utf-8"))
        if "zh" not in data:
            continue

        def visit(text):
            fixed = fix(text)
            if fixed != text:
                left.append(f"{name}: {text[:90]}")
            return fixed

        data["zh"] = walk(data["zh"], visit)
        if sys.argv[1] == "--fix":
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    if sys.argv[1] == "--check" and left:
        print("\n".join(left))
        print(f"{len(left)} Chinese strings with ASCII punctuation next to Chinese: scripts/zh_punctuation.py --fix")
        sys.exit(1)
    print(f"{len(left)} strings {'fixed' if sys.argv[1] == '--fix' else 'to fix'}")


if __name__ == "__main__":
    main()
