#!/usr/bin/env python3
"""Writes the lab pages (docs/labs/<id>.md and <id>.zh.md), the lab index (docs/labs/README.md),
README's lab table and docs/cli.md's command reference from the catalogue (`streamlab-cli list --json`) and the lab texts
(assets/labs/<id>.json). With --check it writes nothing and fails on any difference, so a
test keeps the pages in step with the labs.

  scripts/gen_docs.py --cli build/app/cli/streamlab-cli            # write
  scripts/gen_docs.py --cli build/app/cli/streamlab-cli --check    # compare (a CTest test)
"""
import argparse
import re
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
README_BEGIN = "<!-- lab index: scripts/gen_docs.py writes this table -->"
README_END = "<!-- end of lab index -->"
CLI_BEGIN = "<!-- command reference: scripts/gen_docs.py writes this from streamlab-cli's own help -->"
CLI_END = "<!-- end of command reference -->"

# Headings and fixed phrases, by language. The texts themselves come from assets/labs.
WORDS = {
    "en": {
        "week": "Week", "gpus": "GPUs", "goal": "Goal", "concepts": "Key concepts",
        "myth": "What the course notes get wrong", "run": "Run it", "variants": "Variants and what each run must show",
        "variant": "variant", "claims": "claims checked on every run", "torch_claims": "claims in PyTorch",
        "params": "Parameters", "param": "parameter", "default": "default", "range": "range",
        "predict": "Predict before you run", "answer": "Answer form", "observe": "What to observe",
        "explanation": "Why", "exercise": "Exercise (checked)", "goals": "Check passes when",
        "solution": "A reference solution", "pytorch": "In PyTorch", "measured": "What was measured",
        "measured_cuda": "CUDA C++ (an H200 unless the text names another GPU)", "measured_torch": "PyTorch (an H100 unless the text names another GPU)",
        "fixtures": "GPU traces (tests run the analyzer and the claims on them)", "sources": "Source files",
        "lab_file": "the lab (its stream/event program and claims)", "texts": "its texts (en, zh), answer form and exercise check",
        "other_lang": "中文", "index_title": "The labs", "index_intro":
            "Every lab of the course, by week. Each page says what the lab shows, how to run it, what to "
            "predict, its checked exercise and what was measured on real GPUs. How the labs run on a GPU, "
            "on the simulator and in PyTorch: [about.md](about.md).",
        "lab": "lab", "what": "what it shows", "form": {"number": "a number", "choice": "one of a few choices", "order": "the order in which the GPU work starts"},
        "app": "in the app", "cli": "in a terminal",
    },
    "zh": {
        "week": "第", "gpus": "GPU 数", "goal": "目标", "concepts": "关键概念",
        "myth": "课程讲义中的错误说法", "run": "运行", "variants": "变体,以及每次运行必须满足的判据",
        "variant": "变体", "claims": "每次运行都检查的判据", "torch_claims": "PyTorch 中的判据",
        "params": "参数", "param": "参数", "default": "默认值", "range": "范围",
        "predict": "运行之前先预测", "answer": "回答形式", "observe": "观察什么",
        "explanation": "原因", "exercise": "练习(自动检查)", "goals": "检查通过的条件",
        "solution": "参考解答", "pytorch": "在 PyTorch 中", "measured": "实测结果",
        "measured_cuda": "CUDA C++(除非文中另有说明,为 H200)", "measured_torch": "PyTorch(除非文中另有说明,为 H100)",
        "fixtures": "GPU 轨迹(测试在其上运行分析器并检查判据)", "sources": "源文件",
        "lab_file": "实验本身(流/事件程序与判据)", "texts": "文本(英文、中文)、回答形式与练习检查",
        "other_lang": "English", "index_title": "实验", "index_intro": "", "lab": "实验", "what": "内容",
        "form": {"number": "一个数值", "choice": "几个选项之一", "order": "GPU 工作开始的顺序"},
        "app": "在应用中", "cli": "在终端中",
    },
}


def catalogue(cli):
    out = subprocess.run([cli, "list", "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["labs"]


def lab_source(lab_id):
    for path in sorted((ROOT / "labs").rglob("*.cpp")):
        if f'lab.id = "{lab_id}";' in path.read_text(encoding="utf-8"):
            return path.relative_to(ROOT).as_posix()
    raise SystemExit(f"gen_docs: no file in labs/ sets lab.id = \"{lab_id}\"")


def fixtures(lab_id):
    folder = ROOT / "tests" / "fixtures" / "gpu"
    return sorted(p.relative_to(ROOT).as_posix() for p in folder.glob(f"{lab_id}.*.json"))


def quote_block(text):
    return "\n".join("> " + line if line else ">" for line in text.split("\n"))


def answer_lines(answer, lang, w):
    if not answer:
        return []
    lines = [f"{w['answer']}: {w['form'].get(answer.get('form'), answer.get('form'))}"
             + (f" — {answer['prompt'][lang]}" if "prompt" in answer else "")
             + (f" ({answer['unit']})" if answer.get("unit") else "") + "."]
    for choice in answer.get("choices", []):
        lines.append(f"- {choice[lang]}")
    return lines


def check_lines(check, lang, w):
    if not check:
        return []
    lines = [f"{w['goals']} (`{check.get('variant', '')}`):"]
    for goal in check.get("goals", []):
        lines.append(f"- {goal[lang]}")
    return lines


def variants_table(lab, w):
    rows = [f"| {w['variant']} | {w['gpus']} | {w['claims']} |", "| --- | --- | --- |"]
    for v in lab["variants"]:
        claims = "<br>".join(c.replace("|", "\\|") for c in v["claims"]) or "-"
        if v.get("torch_claims"):
            claims += f"<br>*{w['torch_claims']}:* " + "<br>".join(c.replace("|", "\\|") for c in v["torch_claims"])
        rows.append(f"| `{v['name']}` | {v['gpus']} | {claims} |")
    return rows


def params_table(lab, w):
    if not lab["params"]:
        return []
    rows = [f"| {w['param']} | {w['default']} | {w['range']} |", "| --- | --- | --- |"]
    for p in lab["params"]:
        unit = f" {p['unit']}" if p["unit"] else ""
        rows.append(f"| `{p['name']}` | {p['default']:g}{unit} | {p['min']:g} – {p['max']:g} |")
    return ["", f"**{w['params']}**", ""] + rows


def lab_page(lab, texts, lang):
    w, t, lab_id = WORDS[lang], texts[lang], lab["id"]
    other = f"{lab_id}.zh.md" if lang == "en" else f"{lab_id}.md"
    first = lab["variants"][0]["name"]
    week = f"{w['week']} {lab['week']}" if lang == "en" else f"{w['week']} {lab['week']} 周"
    out = [f"# {t['title']} (`{lab_id}`)", "",
           f"{week} · {w['gpus']}: {lab['gpus']} · [{w['other_lang']}]({other})", "",
           f"## {w['goal']}", "", t["goal"], "", f"## {w['concepts']}", "", t["theory"], ""]
    if t.get("myth"):
        out += [f"## {w['myth']}", "", t["myth"], ""]
    out += [f"## {w['run']}", "", "```sh",
            f"streamlab-cli run {lab_id} --variant {first}              # {w['cli']}: simulator",
            f"streamlab-cli run {lab_id} --variant {first} --backend cuda",
            f"streamlab-cli explain {lab_id} --variant {first} --lang {lang}",
            f"streamlab --lab {lab_id} --variant {first}                # {w['app']}", "```", "",
            f"## {w['variants']}", ""] + variants_table(lab, w) + params_table(lab, w)
    out += ["", f"## {w['predict']}", "", t["predict"], ""] + answer_lines(texts.get("answer"), lang, w)
    out += ["", f"## {w['observe']}", "", t["observe"], "", f"## {w['explanation']}", "", t["explanation"], "",
            f"## {w['exercise']}", "", t["exercise"], ""] + check_lines(texts.get("check"), lang, w)
    solution = ROOT / "tests" / "exercises" / f"{lab_id}.txt"
    if solution.exists():
        out += ["", f"{w['solution']}: [`tests/exercises/{lab_id}.txt`](../../tests/exercises/{lab_id}.txt)."]
    if t.get("pytorch"):
        out += ["", f"## {w['pytorch']}", "", t["pytorch"]]
    measured = texts.get("measured")
    if measured:
        out += ["", f"## {w['measured']}", "", f"- **{w['measured_cuda']}**: {measured['cuda_h200']}",
                f"- **{w['measured_torch']}**: {measured['torch']}"]
    traces = fixtures(lab_id)
    if traces:
        out += ["", f"{w['fixtures']}: " + ", ".join(f"[`{pathlib.Path(p).name}`](../../{p})" for p in traces) + "."]
    source = lab_source(lab_id)
    out += ["", f"## {w['sources']}", "", f"- [`{source}`](../../{source}): {w['lab_file']}",
            f"- [`assets/labs/{lab_id}.json`](../../assets/labs/{lab_id}.json): {w['texts']}"]
    return "\n".join(out) + "\n"


def index_rows(labs, texts, link_prefix, field="goal"):
    """One row per lab; README shows each lab's title (a door), docs/labs/README.md its goal."""
    rows = [f"| week | lab | {field} |", "| --- | --- | --- |"]
    for lab in labs:
        text = texts[lab["id"]]["en"][field].replace("|", "\\|")
        zh = f"{link_prefix}{lab['id']}.zh.md"
        rows.append(f"| {lab['week']} | [`{lab['id']}`]({link_prefix}{lab['id']}.md) ([中文]({zh})) | {text} |")
    return rows


def index_page(labs, texts):
    w = WORDS["en"]
    out = [f"# {w['index_title']}", "", w["index_intro"], ""] + index_rows(labs, texts, "")
    out += ["", "中文页面:每个实验的 `<id>.zh.md`,例如 [w2-event-chain.zh.md](w2-event-chain.zh.md)。"]
    return "\n".join(out) + "\n"


def readme_with_index(labs, texts):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return replace_between(readme, README_BEGIN, README_END, "\n".join(index_rows(labs, texts, "docs/labs/", "title")), "README.md")


def cli_help(cli, args):
    text = subprocess.run([cli] + args + ["--help"], check=True, capture_output=True, text=True).stdout
    return text.replace(cli, "streamlab-cli").rstrip()


def subcommands(cli):
    help_text = cli_help(cli, [])
    listed = help_text.split("Subcommands:", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in listed.strip().split("\n")]


def replace_between(text, begin, end, body, name):
    if begin not in text or end not in text:
        raise SystemExit(f"gen_docs: {name} lacks its markers")
    head, rest = text.split(begin, 1)
    return head + begin + "\n" + body + "\n" + end + rest.split(end, 1)[1]


def cli_page(cli):
    parts = ["```", cli_help(cli, []), "```"]
    for sub in subcommands(cli):
        parts += ["", f"### `streamlab-cli {sub}`", "", "```", cli_help(cli, [sub]), "```"]
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    return replace_between(page, CLI_BEGIN, CLI_END, "\n".join(parts), "docs/cli.md")


def expected_files(cli):
    labs = catalogue(cli)
    texts = {lab["id"]: json.loads((ROOT / "assets" / "labs" / f"{lab['id']}.json").read_text(encoding="utf-8"))
             for lab in labs}
    files = {"docs/labs/README.md": index_page(labs, texts), "README.md": readme_with_index(labs, texts),
             "docs/cli.md": cli_page(cli)}
    for lab in labs:
        files[f"docs/labs/{lab['id']}.md"] = lab_page(lab, texts[lab["id"]], "en")
        files[f"docs/labs/{lab['id']}.zh.md"] = lab_page(lab, texts[lab["id"]], "zh")
    return files


def stale_counts(labs):
    """Counts of labs and exercises written by hand in the docs ("each of the 29 exercises") that
    no longer match the catalogue and the exercises checked (tests/exercises): each a difference."""
    exercises = len(list((ROOT / "tests" / "exercises").glob("*.txt")))
    wrong = []
    for page in [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for count, what in re.findall(r"\b(\d+) (labs|exercises)\b", text):
            want = labs if what == "labs" else exercises
            if int(count) != want:
                wrong.append(f"{page.relative_to(ROOT)} says {count} {what}, the catalogue has {want}")
    return wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", required=True, help="path of streamlab-cli")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on any difference")
    args = parser.parse_args()
    stale = []
    for rel, text in expected_files(args.cli).items():
        path = ROOT / rel
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(rel)
        if not args.check:
            path.write_text(text, encoding="utf-8")
    generated = {f"{lab['id']}.md" for lab in catalogue(args.cli)} | {f"{lab['id']}.zh.md" for lab in catalogue(args.cli)}
    extra = [p.name for p in (ROOT / "docs" / "labs").glob("w*.md") if p.name not in generated]
    counts = stale_counts(len(catalogue(args.cli)))
    if args.check:
        for rel in stale:
            print(f"gen_docs: {rel} is out of date: run scripts/gen_docs.py --cli PATH/streamlab-cli")
        for name in extra:
            print(f"gen_docs: docs/labs/{name} belongs to no lab")
        for wrong in counts:
            print(f"gen_docs: {wrong}")
        print(f"gen_docs: {len(stale) + len(extra) + len(counts)} differences")
        return 1 if stale or extra or counts else 0
    for rel in stale:
        print(f"wrote {rel}")
    for wrong in counts:  # written by hand: said, not rewritten
        print(f"gen_docs: {wrong}")
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
