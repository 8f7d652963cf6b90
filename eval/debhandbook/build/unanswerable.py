#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the canonical texts), as
evidence the pages do not answer it.  `near` questions are Debian and Linux administration
tasks that the 28 chosen pages do not cover: one is in a section of the handbook left out
(unattended-upgrades, 6.9), the others are tools the book does not treat (ZFS, Kubernetes,
Ansible, WireGuard, restic, PostgreSQL and MariaDB administration, nginx, LUKS, SMART,
chrony, Kerberos, Prometheus, Flatpak, Dovecot, tmux, HAProxy, iSCSI, interface bonding,
systemd timers); `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I create a ZFS pool from two mirrored disks and schedule a monthly scrub of it?"),
    ("near", "How do I join a Debian machine to an existing Kubernetes cluster as a worker node with kubeadm?"),
    ("near", "How do I write an Ansible playbook that installs the same packages on all my Debian servers?"),
    ("near", "How do I connect two Debian servers with a WireGuard tunnel brought up by wg-quick?"),
    ("near", "How do I make encrypted, deduplicated backups of my server to an S3 bucket with restic, and prune old snapshots?"),
    ("near", "How do I set up PostgreSQL streaming replication to a standby server with pg_basebackup?"),
    ("near", "How do I reset a forgotten MariaDB root password on a Debian server?"),
    ("near", "How do I put nginx in front of an application server as a reverse proxy with proxy_pass?"),
    ("near", "How do I encrypt a data partition with LUKS and have it unlocked at boot through crypttab?"),
    ("near", "How do I check a hard disk's SMART health with smartctl and get an email when it starts failing?"),
    ("near", "How do I make a Debian server install security updates by itself every night with unattended-upgrades?"),
    ("near", "How do I replace ntpd with chrony and see how far off the system clock is?"),
    ("near", "How do I set up a Kerberos realm and obtain a ticket with kinit?"),
    ("near", "How do I expose server metrics to Prometheus with node_exporter and graph them in Grafana?"),
    ("near", "How do I install desktop applications from Flathub with Flatpak on Debian?"),
    ("near", "How do I let users read their mail over IMAP with Dovecot?"),
    ("near", "How do I keep a long-running command alive after my SSH connection drops by running it inside tmux?"),
    ("near", "How do I spread web traffic over three backend servers with HAProxy?"),
    ("near", "How do I export a block device as an iSCSI target with targetcli?"),
    ("near", "How do I bond two network cards together for failover with ifenslave?"),
    ("near", "How do I replace a cron job with a systemd timer unit that uses OnCalendar?"),
    ("off", "How do I restring a badminton racket at home?"),
    ("off", "How long should dried chickpeas soak before I cook them?"),
    ("off", "How can I stop a pet hamster from biting when I pick it up?"),
    ("off", "What is the best way to remove limescale from a glass shower screen?"),
    ("off", "How do I work out how many rolls of wallpaper a bedroom needs?"),
    ("off", "How can I keep slugs away from the lettuce in my vegetable patch?"),
    ("off", "How do I choose the right size of bicycle helmet for a child?"),
    ("off", "How do I make fresh pasta dough by hand without a machine?"),
    ("off", "How are points scored in rugby union, for someone watching their first match?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")
