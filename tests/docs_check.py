#!/usr/bin/env python3
"""Checks the manual's shape: README stays a door (at most 10 KB), every relative link in
README.md, CHANGELOG.md and docs/ points at a file that exists, and every page of docs/ can be
reached from README by following links. Exit 1 with one line per problem."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def links(page):
    for match in LINK.finditer(page.read_text(encoding="utf-8")):
        target = match.group(1)
        if re.match(r"^[a-z]+:|^#", target):
            continue
        yield (page.parent / target.split("#")[0]).resolve()


def main():
    problems = []
    size = (ROOT / "README.md").stat().st_size
    if size > 10 * 1024:
        problems.append(f"README.md is {size} bytes; a door is at most 10240")
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md"] + sorted((ROOT / "docs").rglob("*.md"))
    for page in pages:
        for target in links(page):
            if not target.exists():
                problems.append(f"{page.relative_to(ROOT)}: link to a missing file {target}")
    reached, to_visit = set(), [ROOT / "README.md"]
    while to_visit:
        page = to_visit.pop()
        if page in reached:
            continue
        reached.add(page)
        for target in links(page):
            if target.is_dir() and (target / "README.md").exists():
                target = target / "README.md"
            if target.suffix == ".md" and target.exists():
                to_visit.append(target)
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if page not in reached:
            problems.append(f"{page.relative_to(ROOT)}: no chain of links from README.md reaches it")
    for line in problems:
        print(line)
    print(f"docs_check: {len(pages)} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
