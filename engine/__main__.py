"""Command line: `python -m engine score|waits|advise|rules < hand.json`.

Prints JSON on stdout. Bad input: one line on stderr, exit code 2, no traceback.
"""
from __future__ import annotations

import argparse
import json
import sys

from .errors import HandError
from .service import advise_json, rules_json, score_json, waits_json

COMMANDS = {"score": score_json, "waits": waits_json, "advise": advise_json}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description="Taiwanese mahjong engine: reads a hand as JSON on stdin, prints JSON.",
        epilog="Commands: score (a winning hand: win, 台, breakdown, decomposition, payments); "
               "waits (a 16-tile state: winning tiles with unseen copies, shanten); "
               "advise (a 17-tile state: discards ranked by shanten and useful tiles); "
               "rules (the rule tables). The JSON schema is in the README.")
    parser.add_argument("command", choices=[*COMMANDS, "rules"])
    parser.add_argument("file", nargs="?", help="read the hand from this file instead of stdin")
    args = parser.parse_args(argv)
    try:
        if args.command == "rules":
            out = rules_json()
        else:
            text = open(args.file, encoding="utf-8").read() if args.file else sys.stdin.read()
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                raise HandError(f"input is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}",
                                code="malformed_json", reason=e.msg, line=e.lineno, column=e.colno) from None
            out = COMMANDS[args.command](data)
    except (HandError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
