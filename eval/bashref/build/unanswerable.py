#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the canonical text), as
evidence the manual does not answer it.  `near` questions are what Bash users ask about the
tools around the shell, which the Bash Reference Manual does not treat (other shells, linters,
multiplexers, schedulers, test frameworks, prompts, platforms, debuggers, helper utilities);
`off` questions are off-topic, none of them another corpus's."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I make zsh my login shell and carry my Bash prompt over to an oh-my-zsh theme?"),
    ("near", "How do I define abbreviations in the fish shell that expand as I type?"),
    ("near", "How do I silence ShellCheck's SC2086 warning about unquoted variables for one line?"),
    ("near", "How do I split a terminal into panes and reattach later with tmux?"),
    ("near", "How do I run my backup script every night at 2am with crontab?"),
    ("near", "How do I run a shell script at boot as a systemd service with systemctl?"),
    ("near", "How do I write unit tests for my shell functions with the bats framework?"),
    ("near", "How do I pull a field out of a JSON API response with jq in a script?"),
    ("near", "How do I set up the starship prompt or a powerline-style prompt with special fonts?"),
    ("near", "How do I start ssh-agent once per login and add my key with ssh-add?"),
    ("near", "How do I run Bash scripts on Windows through WSL, the Windows Subsystem for Linux?"),
    ("near", "How do I install a current Bash on macOS with Homebrew instead of the old 3.2?"),
    ("near", "How do I step through a script and set a breakpoint with bashdb?"),
    ("near", "How do I parse long options like --verbose with the util-linux getopt command?"),
    ("near", "How do I stop two copies of a script running at once with flock and a lock file?"),
    ("near", "How do I send an e-mail with an attachment from a script using mailx or sendmail?"),
    ("near", "How do I show a progress bar dialog box with whiptail while a script works?"),
    ("near", "A script edited on Windows fails with bad interpreter errors; how do I fix its CRLF line endings with dos2unix?"),
    ("near", "How do I mirror a directory to a remote server with rsync, deleting files that were removed?"),
    ("near", "How do I show the current git branch in my prompt with __git_ps1 from git-prompt.sh?"),
    ("near", "How do I load environment variables automatically when I cd into a project with direnv and .envrc?"),
    ("off", "How do I replace a blunt chain on a petrol chainsaw?"),
    ("off", "What is the neatest way to fillet a fresh mackerel?"),
    ("off", "How do I grout new ceramic tiles on a bathroom wall?"),
    ("off", "How can I teach a pet cockatiel to whistle a tune?"),
    ("off", "Which potatoes make the crispiest roast potatoes?"),
    ("off", "How should ski boots fit when I try them on in the shop?"),
    ("off", "When should a patchy lawn be reseeded, and how do I prepare it?"),
    ("off", "What are the basic rules of mahjong for a four-player game?"),
    ("off", "How do I get back into a canoe after capsizing in deep water?"),
]


def main():
    with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
        for n, (kind, q) in enumerate(U, 1):
            fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
