#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document's canonical text
(citeline's HTML extraction of the page, not the raw HTML) between a start marker and an
end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run).

Each needle is also checked against the text of the book's boxed asides (DocBook's
<div class="sidebar">: TIP, BACK TO BASICS, CULTURE, ...), which citeline's extractor drops
today (see README.md): no needle occurs in one, so a later extractor that reads them keeps
every needle unique.

Run with citeline's interpreter: /work/main/.venv/bin/python build/make_gt.py"""
import json
import os
import re
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402
from citeline.extract.html import LexborHTMLParser  # noqa: E402


def canonical(name):
    p = Path(HERE, "docs", name)
    return extractor_for(p).extract(p, name).text


def sidebar_text():
    """The text of every boxed aside of every page, whitespace squashed."""
    out = []
    for name in sorted(os.listdir(os.path.join(HERE, "docs"))):
        tree = LexborHTMLParser(Path(HERE, "docs", name).read_text(encoding="utf-8"))
        out += [re.sub(r"\s+", " ", n.text()) for n in tree.css("div.sidebar")]
    return "\n".join(out)


GT = [
    ("01-manipulating-packages-with-dpkg.html", "This removal is, however, not complete", "handled by the package remain.",
     "Does removing a package with dpkg also delete its configuration files and data?",
     "I ran dpkg -r on nginx to start from scratch, reinstalled it, and my old sites setup is still sitting there. Why didn't it go away?"),
    ("02-apt.html", "Note that when the desired version of a package is available on several repositories", "file will be used.",
     "When several repositories offer an identical package version, which of them does APT download from?",
     "we mirror a few packages on an internal server and also have deb.debian.org configured; the exact same version is in both, which server will apt actually download it from?"),
    ("03-apt-get.html", "apt-get autoremove or apt autoremove will get rid of those packages.", "get rid of those packages.",
     "How are automatically installed dependencies that nothing needs any more cleaned up?",
     "after uninstalling a big desktop app there are still hundreds of libraries lying around that nothing uses; what's the command to clear them out?"),
    ("04-dist-upgrade.html", "To anticipate some of these problems, you can install the apt-listchanges package", "at the beginning of a package upgrade.",
     "Which tool shows the maintainers' notes about incompatible changes while packages are being upgraded?",
     "last release upgrade silently changed a daemon's default config format and we only found out in production. Can I be warned about stuff like that before it gets installed?"),
    ("05-common-procedures.html", "Logs are stored in /var/log/ or one of its subdirectories.", "or one of its subdirectories.",
     "In which directory do daemons normally keep the records of their activity and errors?",
     "a service on my box keeps failing silently and nobody told me where its error output goes, where do Debian programs write that stuff?"),
    ("06-network-config.html", "This is why it will systematically ignore all network interfaces", "for which it is not suited.",
     "Does Network Manager handle interfaces that are already defined in the ifupdown configuration?",
     "on my laptop the network applet says the wired card is 'unmanaged' and I can't switch to it from the tray icon"),
    ("07-user-group-databases.html", "You can also force the expiration of a password using the passwd -e user command", "the next time they log in.",
     "How does an administrator make a user pick a new password at their next login?",
     "gave a new hire a temporary password over the phone; I want the system to make her choose her own as soon as she signs in"),
    ("08-config-bootloader.html", "Be careful not to modify it by hand, since such local modifications will be lost", "(which may occur upon update of various packages).",
     "Is it safe to edit the generated GRUB 2 configuration file directly?",
     "I changed the menu timeout in /boot/grub/grub.cfg and it worked for a while, then after last week's kernel update it's back to 5 seconds"),
    ("08-config-bootloader.html", "Another restriction of the MS-DOS partition table format is that it only allows disks up to 2 TiB in size", "real problem with recent disks.",
     "What is the largest disk an MS-DOS style partition table can address?",
     "put a new 6TB drive in the backup server, but with the old dos label fdisk only lets me use about 2TB of it"),
    ("09-config-misc.html", "nofail allows the boot to proceed even when the device is not present.", "device is not present.",
     "Which mount option lets startup continue when a device listed in fstab is missing?",
     "the server hangs during boot and drops into emergency mode whenever the external USB backup disk isn't plugged in"),
    ("10-kernel-compilation.html", "The whole process requires around 20 GB of free space", "for a standard amd64 Debian kernel.",
     "How much disk space, memory and time does building a Debian kernel package take?",
     "kernel build on our small VM died after a couple of hours with 'No space left on device', how much room and RAM does this really need?"),
    ("11-unix-services.html", "To control whether a service is active (i.e. whether it will get started automatically on boot)", "(or disable).",
     "How do I make a systemd unit start automatically at boot?",
     "I started my app's service by hand with systemctl and it ran fine, but after every reboot it's down again"),
    ("12-remote-login.html", "Fortunately, ssh-agent allows us to keep private keys in memory", "to regularly re-enter the password.",
     "How can one avoid typing the key passphrase for every SSH connection?",
     "my ssh key has a passphrase and I get asked for it literally every time I push or log in to a box, dozens of times a day"),
    ("13-rights-management.html", "If a file has ACLs set, the output of the ls -l command", "after the traditional permissions.",
     "How can one tell from a long directory listing that a file carries access control lists?",
     "ls shows -rw-rw-r--+ on some files in the shared folder, what does the trailing + mean?"),
    ("13-rights-management.html", "Note that the use of octal notation only allows to set all the rights at once on a file", "such as read access for the group owner",
     "Can a numeric chmod mode grant one extra permission without touching the others?",
     "I want to give the group read access on a bunch of files that all have different modes; chmod 640 would clobber them. Is there a way with the numbers?"),
    ("14-syslog.html", "The priority indicated also covers messages of equal or higher priority", "of alert or emerg priority.",
     "Does a syslog selector match only the named priority level or also more severe ones?",
     "I put mail.warning in rsyslog.conf to get just the warnings into a file, but errors and critical mail messages land there too"),
    ("15-task-scheduling-cron-atd.html", "the value for the day of the week (from 0 to 7", "represented by both 0 and 7;",
     "How are the weekdays numbered in a crontab entry?",
     "need a job every Sunday night; a colleague put 7 in the fifth field, another says it has to be 0, which is right?"),
    ("16-backup.html", "As such, the rsync command is preceded by a duplication", "too much hard drive space.",
     "How can daily rsync backups be kept without each copy taking the full amount of disk space?",
     "we want a snapshot of the file server for each day of the month but there isn't room for 30 full copies, how do people do this with rsync?"),
    ("17-hotplug.html", "Only the first assignment counts; the others are ignored;", "the others are ignored;",
     "When several udev rules set the name of a device node, which one takes effect?",
     "I wrote a rule under /etc/udev/rules.d to give my USB scanner its own node name, but another rule file sets one too. Which one wins?"),
    ("18-virtual-private-network.html", "Barring further action, VPN clients can only access the VPN server itself", "by way of the 10.8.0.1 address.",
     "Which hosts can OpenVPN clients reach by default, without an extra route being pushed?",
     "home workers connect to the OpenVPN fine but can't ping anything on the office LAN, only the VPN box itself"),
    ("18-virtual-private-network.html", "However, the VPN they provide is not the most efficient available", "high levels of traffic very well.",
     "How well does a virtual private network built over SSH cope with heavy load?",
     "our site-to-site link is an ssh tunnel with tun devices; fine for admin work, but it crawls and stalls during big file copies"),
    ("19-domain-name-servers.html", "The highest-priority server (with the lowest number) is tried first", "is tried first",
     "In which order are a domain's mail exchangers contacted according to their preference values?",
     "we have two MX records, 10 for the main mail server and 20 for the backup one; which does the rest of the internet send to first?"),
    ("20-network-diagnosis-tools.html", "-p, to list the processes involved; this option is only useful when netstat is run as root", "their own processes;",
     "Why might netstat fail to show which program owns a socket?",
     "netstat -tupan shows the listening ports but the PID/Program name column is just '-' for most of them when I run it from my normal account"),
    ("21-network-services.html", "Unfortunately some DNS servers can only handle text entries with a maximum length of 255 characters", "exceeded by the chosen default keysize.",
     "Why can the default DKIM key size cause trouble when the public key is published in DNS?",
     "our DNS provider's control panel rejects the TXT record that opendkim-genkey produced, saying it is too long"),
    ("22-http-web-server.html", "This causes the default event MPM to be disabled, and prefork to be used instead.", "to be used instead.",
     "Which multi-processing module does Apache switch to when the PHP module package is installed?",
     "after apt install libapache2-mod-php our tuned mpm_event settings do nothing any more and apache2ctl -M lists mpm_prefork"),
    ("23-advanced-administration.html", "Here again, the system stays functional with up to one failed disk (of the N+1), but no more.", "but no more.",
     "How many disk failures can a RAID-5 array survive?",
     "one drive in our four-disk RAID 5 died last night and a second is throwing SMART errors; are we still safe until the replacement arrives?"),
    ("24-virtualization.html", "Detaching from this console is achieved through the Control+] key combination.", "key combination.",
     "How does one leave a Xen guest's console once attached to it?",
     "I did xl console on a domU and now I'm stuck inside it, exit just logs me out of the guest and I can't get back to the dom0 prompt"),
    ("24-virtualization.html", "In LXC releases following 2.0.8, root passwords are not set by default.", "not set by default.",
     "Does a freshly created LXC container come with a root password?",
     "built a debian container with lxc-create, started it, and lxc-console asks for a login; what is root's password supposed to be?"),
    ("25-monitoring.html", "The default configuration is allow ^127", "only allows access to the local host.",
     "Which hosts may fetch data from a Munin node out of the box?",
     "the central graphing box shows nothing for the new server; telnet to port 4949 connects and then immediately closes"),
    ("26-firewall-packet-filtering.html", "The executed nft commands do not make permanent changes to the configuration", "if they are not saved.",
     "Do rules added with nft survive a restart of the machine?",
     "every time the box reboots my firewall rules are gone and I have to type them in again"),
    ("27-supervision.html", "To enable, disable, or configure \u201cjails\u201c, the main configuration file", "is not supposed to be altered.",
     "Where should local Fail2Ban jail settings go on Debian?",
     "I changed bantime in the fail2ban jail file and the package upgrade then asked me about overwriting it. Where am I meant to put my own settings?"),
    ("28-dealing-with-compromised-machine.html", "When mounting these images, care should be taken to use the ro,nodev,noexec,noatime options", "to avoid changing the contents",
     "Which mount options should be used when examining a disk image of a cracked system?",
     "I've got a dd copy of the hacked web server's disk and want to look through it on my workstation without wrecking the evidence, how should I mount it?"),
]


def main():
    rows = []
    texts = {}
    asides = sidebar_text()
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = texts.setdefault(doc, canonical(doc))
        assert text.count(start) == 1, (n, "start marker not unique", start)
        a = text.index(start)
        assert text.find(end, a) >= 0, (n, "end marker not found", end)
        b = text.index(end, a) + len(end)
        needle = text[a:b]
        assert re.sub(r"\s+", " ", needle) not in asides, (n, "needle occurs in a dropped aside")
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": needle,
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        t = texts[r["doc"]]
        print(r["id"], r["doc"][:2], len(r["needle"]), f"{t.index(r['needle']) / len(t):.2f}", repr(r["needle"])[:200])


if __name__ == "__main__":
    main()
