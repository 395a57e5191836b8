#!/usr/bin/env python3
"""Writes cases.jsonl (labelled review cases) and script.json (scripted reference answers
for the loopback server, used only to record cassette.jsonl offline).

The script is not a model: it answers each case the way the labels say, except for four
deliberate mistakes (marked MISTAKE below), so the offline scoring exercises every counter
(a false positive, a false negative, a duplicate proposed, a forbidden save). Real scores
come from `hermes-review eval cases.jsonl --model M` against a real endpoint.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
cases, script = [], []


def u(text):
    return {"role": "user", "content": text}


def a(text):
    return {"role": "assistant", "content": text}


def call(cid, name, args):
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def result(cid, name, content):
    return {"role": "tool", "tool_call_id": cid, "tool_name": name, "content": content}


def tool(name, args, cid):
    return {"tool_calls": [{"id": cid, "name": name, "arguments": json.dumps(args)}]}


def case(cid, messages, cls, replies, about=None, skill=None, memory=None, user=None,
         skills=None, forbidden=False):
    expect = {"class": cls}
    if about:
        expect["about"] = about
    if skill:
        expect["skill"] = skill
    c = {"id": cid, "messages": messages, "expect": expect}
    if memory or user:
        c["memory"] = {"memory": memory or [], "user": user or []}
    if skills:
        c["skills"] = skills
    if forbidden:
        c["forbidden"] = True
    cases.append(c)
    script.extend(replies)


NOTHING = "Nothing to save."


def remember(cid, target, content, about, messages, **kw):
    case(cid, messages, "memory", [
        tool("memory", {"action": "add", "target": target, "content": content}, cid + "-m"),
        "Saved.",
    ], about=about, **kw)


# --- memory: who the user is, how they want things done -------------------------------
remember("pref-tabs", "user", "Uses tabs, never spaces, for indentation.", "tabs", [
    u("Reformat this Go file. And please: tabs, always tabs, I hate spaces."), a("Done, tabs.")])
remember("pref-terse", "user", "Wants terse answers: the command first, no preamble.", "terse", [
    u("How do I list open ports?"), a("You can use several tools. First, ss is ..."),
    u("Too long. Just give me the command next time."), a("ss -tlnp")])
remember("role-sre", "user", "Is an SRE on the payments team.", "sre", [
    u("I'm the SRE on the payments team, we own the ledger service. Why is p99 up?"),
    a("Probably the new batch job; check the queue depth.")])
remember("tz-berlin", "user", "Lives in Berlin; give times in CET/CEST.", "berlin", [
    u("Schedule it for 9am my time, I'm in Berlin."), a("Scheduled for 09:00 CET.")])
remember("stack-rust", "memory", "Main project is a Rust workspace built with cargo-nextest.", "nextest", [
    u("Run the tests. We use cargo nextest here, not cargo test."), a("cargo nextest run: 212 passed.")])
remember("editor-helix", "user", "Edits in Helix; give Helix keybindings, not Vim.", "helix", [
    u("How do I select the whole line? I use Helix, not vim."), a("Press x.")])
remember("lang-fr", "user", "Prefers answers in French.", "french", [
    u("Réponds en français s'il te plaît, toujours."), a("D'accord, je réponds en français.")])
# MISTAKE: the script misses this preference (a false negative for memory).
case("pref-no-emoji", [u("Stop putting emoji in commit messages. Ever."), a("Understood.")],
     "memory", [NOTHING], about="emoji")

# --- skill patches: a loaded skill was wrong --------------------------------------------
def patch(cid, skill_name, description, body, old, new, messages):
    skills = [{"name": skill_name, "description": description, "body": body}]
    case(cid, messages, "skill_patch", [
        tool("skill_view", {"name": skill_name}, cid + "-v"),
        tool("skill_manage", {"action": "patch", "name": skill_name, "old_string": old,
                              "new_string": new}, cid + "-p"),
        "Patched.",
    ], skill=skill_name, skills=skills)


def loaded(cid, skill_name, rest):
    return [u("go"), call(cid, "skill_view", {"name": skill_name}),
            result(cid, "skill_view", "{\"success\": true}")] + rest


patch("git-lease", "git-workflow", "Updating and pushing branches",
      "1. Rebase on main.\n2. git push --force\n", "git push --force\n",
      "git push --force-with-lease (never plain --force)\n",
      loaded("c1", "git-workflow", [a("Pushed with --force."),
                                     u("Never plain --force on shared branches! Use --force-with-lease."),
                                     a("Understood.")]))
patch("deploy-order", "deploy-service", "Deploying the ledger service",
      "1. Deploy.\n2. Run migrations.\n", "1. Deploy.\n2. Run migrations.\n",
      "1. Run migrations.\n2. Deploy (migrations first, or the new code crashes).\n",
      loaded("c2", "deploy-service", [a("Deployed, now migrating."),
                                       u("Wrong order, migrations go first or it crashes."),
                                       a("Fixed: migrated, redeployed.")]))
patch("report-format", "weekly-report", "Writing the weekly status report",
      "Write three paragraphs of prose.\n", "Write three paragraphs of prose.\n",
      "Write five bullet points, one line each; no prose.\n",
      loaded("c3", "weekly-report", [a("Here are three paragraphs..."),
                                      u("Too verbose. Bullets, five max, one line each."),
                                      a("- shipped X\n- fixed Y")]))
patch("pg-backup-flag", "postgres-backup", "Backing up PostgreSQL",
      "pg_dump -Fc db > db.dump\n", "pg_dump -Fc db > db.dump\n",
      "pg_dump -Fc --no-owner db > db.dump   # --no-owner: restores on other roles\n",
      loaded("c4", "postgres-backup", [a("Dumped."), u("The restore failed on the staging role."),
                                        a("Adding --no-owner fixed the restore."), u("Great.")]))
patch("docker-prune", "docker-cleanup", "Freeing disk used by Docker",
      "docker system prune\n", "docker system prune\n",
      "docker system prune --filter until=72h   # keep the last three days of images\n",
      loaded("c5", "docker-cleanup", [a("Pruned everything."),
                                       u("That deleted the images I needed. Keep the last 3 days."),
                                       a("Use --filter until=72h.")]))
patch("k8s-context", "kubectl-usage", "Working with kubectl",
      "kubectl apply -f x.yaml\n", "kubectl apply -f x.yaml\n",
      "kubectl --context prod apply -f x.yaml   # always name the context\n",
      loaded("c6", "kubectl-usage", [a("Applied."), u("You applied it to the wrong cluster. Always pass --context."),
                                      a("Re-applied with --context prod.")]))
patch("py-venv", "python-setup", "Setting up Python projects",
      "pip install -r requirements.txt\n", "pip install -r requirements.txt\n",
      "uv venv && uv pip install -r requirements.txt   # never the system pip (PEP 668)\n",
      loaded("c7", "python-setup", [a("pip install failed: externally-managed-environment."),
                                     u("Use uv and a venv, as always."), a("uv venv; installed.")]))

# --- new skills: a technique nothing covers yet ------------------------------------------
def create(cid, name, description, body, messages):
    content = "---\nname: %s\ndescription: %s\n---\n\n%s" % (name, description, body)
    case(cid, messages, "skill_create", [
        tool("skill_manage", {"action": "create", "name": name, "content": content}, cid + "-c"),
        "Created.",
    ], about=None)


create("bisect-flaky", "flaky-test-bisect", "Finding the commit that made a test flaky",
       "1. Loop the test 50x per commit.\n2. git bisect run the loop script.\n",
       [u("This test fails one run in ten since last week."),
        a("Looping it 50 times under git bisect run found commit a1b2."), u("Nice trick.")])
create("jq-stream", "large-json-processing", "Processing JSON files too big for memory",
       "Use jq --stream with fromstream(1|truncate_stream(inputs)).\n",
       [u("jq runs out of memory on this 8 GB file."),
        a("jq --stream with fromstream(...) processes it in constant memory."), u("Works.")])
create("ssh-bastion", "ssh-through-bastion", "Reaching private hosts through a bastion",
       "ssh -J bastion user@private-host; put ProxyJump in ~/.ssh/config.\n",
       [u("How do I reach db-1, it's only reachable from the bastion?"),
        a("ssh -J bastion admin@db-1, or ProxyJump in ssh config."), u("Perfect, add that to config.")])
create("tls-expiry", "tls-certificate-checks", "Checking when TLS certificates expire",
       "openssl s_client -connect host:443 </dev/null | openssl x509 -noout -enddate\n",
       [u("When does the cert on api.example.com expire?"),
        a("openssl s_client ... | openssl x509 -noout -enddate: May 3."), u("Thanks, I check this monthly.")])
create("sqlite-wal", "sqlite-maintenance", "Keeping SQLite databases healthy",
       "PRAGMA wal_checkpoint(TRUNCATE); then VACUUM when the WAL grows.\n",
       [u("The -wal file is 4 GB."), a("A TRUNCATE checkpoint shrank it; VACUUM reclaimed space."),
        u("Good, this keeps happening.")])

# --- nothing: smooth sessions ------------------------------------------------------------
case("smooth-math", [u("What's 17% of 2400?"), a("408.")], "nothing", [NOTHING])
case("smooth-lookup", [u("Capital of Australia?"), a("Canberra.")], "nothing", [NOTHING])
case("smooth-rename", [u("Rename foo.txt to bar.txt"), a("Done: mv foo.txt bar.txt")], "nothing", [NOTHING])
# MISTAKE: the script creates a skill from a trivial one-off (a false positive).
case("smooth-greeting", [u("Thanks, that's all for today."), a("You're welcome!")], "nothing", [
    tool("skill_manage", {"action": "create", "name": "saying-goodbye",
                          "content": "---\nname: saying-goodbye\ndescription: Ending a session\n---\n\nSay you're welcome.\n"},
         "g-c"),
    "Created."])

# --- never save: environment failures, negative claims, transient errors, one-offs ------
case("env-missing-binary", [u("Run the linter."), a("ruff: command not found."),
                            u("Oh, it's a fresh machine, never mind.")], "nothing", [NOTHING], forbidden=True)
case("transient-reset", [u("Fetch the release notes."), a("curl: connection reset. Retrying... got them.")],
     "nothing", [NOTHING], forbidden=True)
case("negative-browser", [u("Open the dashboard in the browser tool."), a("The browser tool timed out."),
                          u("Forget it.")], "nothing", [NOTHING], forbidden=True)
case("one-off-market", [u("Summarise today's market news."), a("Stocks rose 1%...")],
     "nothing", [NOTHING], forbidden=True)
# MISTAKE: the script saves a negative claim about a tool (a forbidden save).
case("negative-curl", [u("Download the file."), a("curl failed with a DNS error; wget worked.")],
     "nothing", [tool("memory", {"action": "add", "target": "memory",
                                 "content": "curl does not work on this machine; use wget."}, "n-m"),
                 "Saved."], forbidden=True)
case("one-off-pr", [u("Review PR 4812."), a("Two nits, otherwise fine.")], "nothing", [NOTHING],
     forbidden=True)

# --- already known: nothing new to add -----------------------------------------------------
case("known-postgres", [u("Which database do we use? PostgreSQL 16 right?"), a("Yes, PostgreSQL 16.")],
     "nothing", [NOTHING], memory=["Project database is PostgreSQL 16."])
case("known-vim", [u("As you know I use Neovim."), a("Yes.")], "nothing", [NOTHING],
     user=["Uses Neovim as the editor."])
# MISTAKE: the script adds a fact memory already holds (a duplicate proposed; the store
# answers that it is already there, so nothing is written).
case("known-utc", [u("Remember, all my times are UTC."), a("Yes, UTC.")], "nothing", [
    tool("memory", {"action": "add", "target": "user", "content": "All times are UTC."}, "k-m"),
    "Saved."], user=["All times are UTC."])

with open(os.path.join(HERE, "cases.jsonl"), "w") as f:
    for c in cases:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
with open(os.path.join(HERE, "script.json"), "w") as f:
    json.dump(script, f, ensure_ascii=False, indent=1)
print(f"{len(cases)} cases, {len(script)} scripted replies")
