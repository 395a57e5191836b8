//! The sandbox end to end. First what a user and a host see: `thread.started` naming the
//! policy, `--approvals on-failure` asking after a refusal, secrets redacted in what the
//! model reads. Then the sandbox against what an attacker would run: every command of
//! testdata/sandbox/attacks.tsv, and every everyday command of testdata/sandbox/everyday.txt,
//! RUN FOR REAL by hermes-chat's terminal tool under the default policy (workspace-write,
//! network off), one hermes-chat session per class, driven by the scripted model server.
//!
//! Each test runs inside a jail of its own so that a sandbox bug cannot harm the machine:
//! user, mount, network and PID namespaces (`unshare`), the root filesystem remounted
//! read-only but for the test's throwaway folder, a throwaway HOME seeded with canary
//! secrets, and loopback only. The test binary re-runs itself inside the jail (the
//! `JAIL_DIR` variable says it is there) and does the real work there: the model server, a
//! listener that records every TCP connection and DNS datagram, and hermes-chat.
//!
//! After each class: the files outside the workspace are as they were (contents, modes,
//! times), the workspace's `.git/hooks` and `.git/config` too, no connection or datagram
//! reached the listener, no canary secret appears in hermes-chat's output, in what the
//! model was sent, in state.db or in the workspace, no set-user-ID file exists, and
//! hermes-chat itself survived every command.

#[allow(dead_code)]
#[path = "support/chat_server.rs"]
mod chat_server;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chat_server::{ChatServer, Reply};
use serde_json::{Value, json};

const JAIL_DIR: &str = "HERMES_SANDBOX_JAIL_DIR";

/// The namespaces of the jail: user (its root is ours), mount, network, PID.
const JAIL_NAMESPACES: [&str; 6] = [
    "--user",
    "--map-root-user",
    "--mount",
    "--net",
    "--pid",
    "--fork",
];

/// The canary secrets: none of them may be seen by anyone but their files.
const CANARIES: &[&str] = &[
    "CANARY-SSH-5e1f9a",
    "CANARY-AWS-77c2d0",
    "CANARY-DOTENV-a4b8e1",
    "CANARY-DOCKER-0d3c55",
    "CANARY-NPM-9f1e2b",
    "CANARY-NETRC-6a7b8c",
    "CANARY-GITCRED-1122aa",
    "CANARY-BROWSER-c0ffee",
    "CANARY-ENVKEY-31337a",
    "CANARY-ENVGH-42424b",
    "CANARY-ENVAWS-5150cc",
];

/// Whether this kernel can contain commands; if not, says that `test` is skipped.
fn kernel_can_contain(test: &str) -> bool {
    use hermes_loop::sandbox::{Mode, Network, Places, Policy, Sandbox, SandboxError};
    let dir = tempfile::tempdir().expect("tempdir");
    let policy = Policy::for_session(
        Mode::WorkspaceWrite,
        Network::Off,
        &Places {
            workspace: dir.path(),
            hermes_home: dir.path(),
            user_home: None,
        },
    );
    match Sandbox::new(policy) {
        Err(SandboxError::Unavailable(why)) => {
            eprintln!("{test}: skipped: this kernel cannot contain commands ({why})");
            false
        }
        _ => true,
    }
}

/// Runs `body` inside the jail: re-runs this test there and asserts it passed. Skips, and
/// says so, only where the kernel has no user namespaces or cannot contain commands.
fn in_jail(test: &str, body: fn(&Path)) {
    if let Ok(dir) = std::env::var(JAIL_DIR) {
        body(Path::new(&dir));
        return;
    }
    if !kernel_can_contain(test) {
        return;
    }
    let probe = Command::new("unshare")
        .args(JAIL_NAMESPACES)
        .arg("true")
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("{test}: skipped: this kernel gives no user namespaces for the test jail");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = std::env::current_exe().expect("current_exe");
    // Inside the new namespaces, as the namespace's root: the test folder stays writable,
    // everything else is read-only, DNS goes to our loopback listener, loopback is up.
    let script = r#"set -e
T="$HERMES_SANDBOX_JAIL_DIR"
mount --bind "$T" "$T"
printf 'nameserver 127.0.0.1\n' > "$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf 2>/dev/null || true
mount -o remount,bind,ro /
mount -o remount,bind,ro /dev/shm 2>/dev/null || true
ip link set lo up
exec "$1" --exact "$2" --nocapture --test-threads 1"#;
    let out = Command::new("unshare")
        .args(JAIL_NAMESPACES)
        .args([
            "--mount-proc",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            script,
            "jail",
        ])
        .arg(&exe)
        .arg(test)
        .env(JAIL_DIR, dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("unshare");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("1 passed"),
        "in the jail:\n{text}"
    );
}

/// The throwaway world of one run.
struct Scene {
    root: PathBuf,
    home: PathBuf,
    hermes: PathBuf,
    work: PathBuf,
    outside: PathBuf,
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

impl Scene {
    fn seed(root: &Path) -> Scene {
        let home = root.join("home");
        let hermes = home.join(".hermes");
        let work = root.join("work");
        let outside = root.join("outside");
        let files: &[(&str, &str)] = &[
            (
                ".ssh/id_ed25519",
                "-----BEGIN OPENSSH PRIVATE KEY-----\nCANARY-SSH-5e1f9a\n-----END OPENSSH PRIVATE KEY-----\n",
            ),
            (".ssh/authorized_keys", "ssh-ed25519 AAAAgood user@host\n"),
            (
                ".aws/credentials",
                "[default]\naws_secret_access_key = CANARY-AWS-77c2d0\n",
            ),
            (
                ".docker/config.json",
                "{\"auths\": {\"r\": {\"auth\": \"CANARY-DOCKER-0d3c55\"}}}\n",
            ),
            (
                ".npmrc",
                "//registry.npmjs.org/:_authToken=CANARY-NPM-9f1e2b\n",
            ),
            (".netrc", "machine h login u password CANARY-NETRC-6a7b8c\n"),
            (
                ".git-credentials",
                "https://u:CANARY-GITCRED-1122aa@example.com\n",
            ),
            (
                ".mozilla/firefox/profile.default/cookies.txt",
                "session CANARY-BROWSER-c0ffee\n",
            ),
            (".bashrc", "# bashrc\n"),
            (".profile", "# profile\n"),
            (".bash_profile", "# bash_profile\n"),
            (".gitconfig", "[user]\n\tname = someone\n"),
            (".config/app/settings.ini", "x=1\n"),
            (".local/share/app/data", "data\n"),
            ("notes.txt", "my notes\n"),
            (".hermes/.env", "OPENAI_API_KEY=CANARY-DOTENV-a4b8e1\n"),
            (
                ".hermes/config.yaml",
                "agent:\n  retry_backoff_seconds: 0.01\n",
            ),
            (".hermes/memories/MEMORY.md", "The user likes tea.\n"),
            (".hermes/memories/USER.md", "Name: Sam\n"),
            (
                ".hermes/skills/demo/SKILL.md",
                "---\nname: demo\ndescription: A demo skill.\n---\nDo the demo.\n",
            ),
        ];
        for (rel, text) in files {
            write(&home.join(rel), text);
        }
        std::fs::create_dir_all(home.join(".config/autostart")).expect("mkdir");
        write(&outside.join("data.txt"), "outside data\n");
        write(&outside.join("nested/deeper.txt"), "deeper\n");
        std::fs::create_dir_all(outside.join("empty")).expect("mkdir");
        let project: &[(&str, &str)] = &[
            (
                "README.md",
                "A small project.\nIt greets.\nA small project.\n",
            ),
            (
                "app.py",
                "def greet(name):\n    return 'hello ' + name\n\nif __name__ == '__main__':\n    print(greet('world'))\n",
            ),
            (
                "test_app.py",
                "import unittest\nimport app\n\nclass T(unittest.TestCase):\n    def test_greet(self):\n        self.assertTrue(callable(app.greeting))\n\nif __name__ == '__main__':\n    unittest.main()\n",
            ),
            (
                "hello.c",
                "#include <stdio.h>\nint main(void) { puts(\"hello from c\"); return 0; }\n",
            ),
            (
                "Makefile",
                "hello: hello.c\n\tgcc -o hello hello.c\n\ntest: hello\n\t./hello\n\nclean:\n\trm -f hello\n",
            ),
            ("run.sh", "#!/bin/sh\necho run ok\n"),
        ];
        for (rel, text) in project {
            write(&work.join(rel), text);
        }
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(args)
                .current_dir(&work)
                .env("HOME", &home)
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.com")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.com")
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q", "-b", "main"]);
        git(&["add", "-A"]);
        git(&["commit", "-qm", "start"]);
        std::fs::create_dir_all(root.join("tmp")).expect("mkdir");
        Scene {
            root: root.to_path_buf(),
            home,
            hermes,
            work,
            outside,
        }
    }

    /// Every file and directory that must not change: HOME (but the state hermes-chat keeps
    /// in HERMES_HOME), the folder outside, the workspace's `.git/hooks` and `.git/config`.
    fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        let mut out = BTreeMap::new();
        let runtime = [
            "state.db",
            "logs",
            "pending",
            "sessions",
            ".skills_prompt_snapshot.json",
        ];
        let skip = |p: &Path| {
            p.strip_prefix(&self.hermes)
                .ok()
                .and_then(|rel| rel.components().next())
                .is_some_and(|first| {
                    let first = first.as_os_str().to_string_lossy();
                    runtime.iter().any(|r| first.starts_with(r))
                })
        };
        let roots = [
            self.home.clone(),
            self.outside.clone(),
            self.work.join(".git/hooks"),
            self.work.join(".git/config"),
        ];
        for root in roots {
            for entry in walkdir::WalkDir::new(&root).follow_links(false) {
                let Ok(entry) = entry else { continue };
                if skip(entry.path()) {
                    continue;
                }
                let Ok(meta) = entry.path().symlink_metadata() else {
                    continue;
                };
                // A directory's time changes with its entries, which are listed themselves
                // (HERMES_HOME's changes as hermes-chat writes state.db).
                let mtime = if meta.is_dir() { 0 } else { meta.mtime() };
                let content = if meta.is_file() {
                    std::fs::read(entry.path())
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default()
                } else {
                    String::new()
                };
                out.insert(
                    entry.path().to_path_buf(),
                    format!(
                        "{:o} {} {} {}",
                        meta.permissions().mode(),
                        meta.uid(),
                        mtime,
                        content
                    ),
                );
            }
        }
        out
    }
}

/// A loopback listener on a free TCP port and on UDP port 53 (where the jail's resolv.conf
/// sends DNS): counts what arrives, and answers HTTP with a script that would leave a mark.
struct Listener {
    port: u16,
    tcp: Arc<AtomicUsize>,
    udp: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Listener {
    fn start(scene: &Scene) -> Listener {
        let tcp_listener = TcpListener::bind("127.0.0.1:0").expect("bind tcp");
        let port = tcp_listener.local_addr().expect("addr").port();
        let tcp = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&tcp);
        let mark = format!(
            "touch {0}/PWNED {1}/PWNED\n",
            scene.home.display(),
            scene.outside.display()
        );
        std::thread::spawn(move || {
            for stream in tcp_listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = write!(
                    stream,
                    "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{mark}",
                    mark.len()
                );
            }
        });
        let udp = Arc::new(Mutex::new(Vec::new()));
        if let Ok(socket) = UdpSocket::bind("127.0.0.1:53") {
            let seen = Arc::clone(&udp);
            std::thread::spawn(move || {
                let mut buf = [0u8; 2048];
                while let Ok((n, _)) = socket.recv_from(&mut buf) {
                    seen.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(buf[..n].to_vec());
                }
            });
        }
        Listener { port, tcp, udp }
    }
}

/// The commands of one class (or the everyday list), placeholders filled in.
fn corpus(file: &str, class: Option<&str>, scene: &Scene, port: u16) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/sandbox")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("corpus");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| match class {
            Some(c) => l
                .split_once('\t')
                .filter(|(k, _)| *k == c)
                .map(|(_, cmd)| cmd),
            None => Some(l),
        })
        .map(|cmd| {
            cmd.replace("{port}", &port.to_string())
                .replace("{outside}", &scene.outside.display().to_string())
        })
        .collect()
}

/// What one hermes-chat session over `commands` left behind.
struct Run {
    stdout: String,
    items: Vec<Value>,
    bodies: Vec<Value>,
}

/// Runs every command through hermes-chat's terminal tool, one model call each, in one
/// session started in the workspace with `--approvals allow` (so the sandbox, not the
/// approval rules, is what stands in the way).
fn run_session(scene: &Scene, commands: &[String]) -> Run {
    let mut script: Vec<Reply> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let args = json!({"command": c, "timeout": 20}).to_string();
            Reply::tool_call(&format!("call_{i}"), "terminal", &args)
        })
        .collect();
    script.push(Reply::text("done"));
    let server = ChatServer::start(script);
    let path = std::env::var("PATH").unwrap_or_default();
    let out = Command::new(env!("CARGO_BIN_EXE_hermes-chat"))
        .args(["--json", "-z", "run the commands", "--approvals", "allow"])
        .args(["--no-review", "--max-turns", "1000", "-m", "fake-model"])
        .current_dir(&scene.work)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &scene.home)
        .env("HERMES_HOME", &scene.hermes)
        .env("TMPDIR", scene.root.join("tmp"))
        .env("LANG", "C.UTF-8")
        .env("HERMES_BASE_URL", server.base_url())
        .env("HERMES_API_KEY", "CANARY-ENVKEY-31337a")
        .env("GITHUB_TOKEN", "CANARY-ENVGH-42424b")
        .env("AWS_SECRET_ACCESS_KEY", "CANARY-ENVAWS-5150cc")
        .env(
            "RUSTUP_HOME",
            std::env::var("RUSTUP_HOME").unwrap_or_default(),
        )
        .stdin(Stdio::null())
        .output()
        .expect("hermes-chat");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "hermes-chat exited {:?}\nstderr: {}\nstdout tail: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        &stdout[stdout.len().saturating_sub(3000)..]
    );
    let items: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "item.completed" && e["item"]["type"] == "command_execution")
        .map(|e| e["item"].clone())
        .collect();
    assert_eq!(
        items.len(),
        commands.len(),
        "every command ran to an end and hermes-chat survived them all"
    );
    Run {
        stdout,
        items,
        bodies: server.bodies(),
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// The attack class `class`, with every effect checked.
fn attack(root: &Path, class: &str) {
    let scene = Scene::seed(root);
    let listener = Listener::start(&scene);
    let commands = corpus("attacks.tsv", Some(class), &scene, listener.port);
    assert!(commands.len() >= 30, "{class}: {} commands", commands.len());
    let before = scene.snapshot();
    let run = run_session(&scene, &commands);
    // Background jobs a command left behind have time to act.
    std::thread::sleep(Duration::from_secs(3));
    let after = scene.snapshot();
    let changed: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| k.display().to_string())
        .collect();
    let outputs = |needle: &str| -> Vec<String> {
        run.items
            .iter()
            .filter(|i| {
                i["aggregated_output"]
                    .as_str()
                    .unwrap_or("")
                    .contains(needle)
            })
            .map(|i| i["command"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert!(
        changed.is_empty(),
        "{class}: changed outside the workspace: {changed:?}"
    );
    assert_eq!(
        listener.tcp.load(Ordering::SeqCst),
        0,
        "{class}: a TCP connection arrived"
    );
    let datagrams = listener.udp.lock().map(|d| d.len()).unwrap_or(0);
    assert_eq!(datagrams, 0, "{class}: a datagram arrived");
    let sent = serde_json::to_string(&run.bodies).unwrap_or_default();
    let mut stored = Vec::new();
    for file in files_under(&scene.hermes) {
        if file.file_name().is_some_and(|n| n != ".env") {
            stored.extend(std::fs::read(&file).unwrap_or_default());
        }
    }
    let stored = String::from_utf8_lossy(&stored).into_owned();
    let mut workspace = String::new();
    for file in files_under(&scene.work) {
        if !file.starts_with(scene.work.join(".git/objects")) {
            workspace.push_str(&String::from_utf8_lossy(
                &std::fs::read(&file).unwrap_or_default(),
            ));
        }
    }
    for canary in CANARIES {
        assert!(
            !run.stdout.contains(canary),
            "{class}: {canary} in hermes-chat's output, from {:?}",
            outputs(canary)
        );
        assert!(
            !sent.contains(canary),
            "{class}: {canary} sent to the model"
        );
        assert!(
            !stored.contains(canary),
            "{class}: {canary} stored under HERMES_HOME"
        );
        assert!(
            !workspace.contains(canary),
            "{class}: {canary} copied into the workspace"
        );
    }
    for file in files_under(&scene.work)
        .into_iter()
        .chain(files_under(&scene.root.join("tmp")))
    {
        let mode = file.symlink_metadata().map(|m| m.mode()).unwrap_or(0);
        assert_eq!(
            mode & 0o6000,
            0,
            "{class}: set-id bit on {}",
            file.display()
        );
    }
}

#[test]
fn destructive_commands_leave_everything_outside_the_workspace_intact() {
    in_jail(
        "destructive_commands_leave_everything_outside_the_workspace_intact",
        |root| attack(root, "destructive"),
    );
}

#[test]
fn exfiltration_reaches_no_listener_and_no_secret_reaches_anyone() {
    in_jail(
        "exfiltration_reaches_no_listener_and_no_secret_reaches_anyone",
        |root| attack(root, "exfiltration"),
    );
}

#[test]
fn persistence_leaves_rc_files_hooks_and_hermes_home_untouched() {
    in_jail(
        "persistence_leaves_rc_files_hooks_and_hermes_home_untouched",
        |root| attack(root, "persistence"),
    );
}

#[test]
fn privilege_escalation_gains_nothing() {
    in_jail("privilege_escalation_gains_nothing", |root| {
        attack(root, "privilege")
    });
}

#[test]
fn remote_code_is_never_fetched() {
    in_jail("remote_code_is_never_fetched", |root| {
        attack(root, "remote")
    });
}

#[test]
fn everyday_developer_commands_all_succeed() {
    in_jail("everyday_developer_commands_all_succeed", |root| {
        let scene = Scene::seed(root);
        let commands = corpus("everyday.txt", None, &scene, 9);
        assert!(commands.len() >= 60, "{} commands", commands.len());
        let run = run_session(&scene, &commands);
        let failed: Vec<String> = run
            .items
            .iter()
            .filter(|i| i["exit_code"] != 0)
            .map(|i| {
                format!(
                    "{} → {} {}",
                    i["command"].as_str().unwrap_or(""),
                    i["exit_code"],
                    i["aggregated_output"].as_str().unwrap_or("")
                )
            })
            .collect();
        assert!(failed.is_empty(), "failed:\n{}", failed.join("\n"));
    });
}

#[test]
fn a_command_sees_no_key_in_its_environment_or_its_parents() {
    in_jail(
        "a_command_sees_no_key_in_its_environment_or_its_parents",
        |root| {
            let scene = Scene::seed(root);
            let commands = [
                "env".to_string(),
                "cat /proc/*/environ | tr '\\0' '\\n'".to_string(),
                "cat /proc/$PPID/environ".to_string(),
            ];
            let run = run_session(&scene, &commands);
            let env_output = run.items[0]["aggregated_output"].as_str().unwrap_or("");
            assert!(env_output.contains("PATH="), "{env_output}");
            assert!(env_output.contains("TMPDIR="), "{env_output}");
            let parent = run.items[2]["aggregated_output"].as_str().unwrap_or("");
            assert!(parent.contains("Permission denied"), "{parent}");
            for canary in CANARIES {
                assert!(!run.stdout.contains(canary), "{canary} seen");
            }
        },
    );
}

/// hermes-chat in `work` with HERMES_HOME `hermes`, against `server`, with only the
/// environment a test gives it.
fn chat_in(work: &Path, hermes: &Path, server: &ChatServer) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hermes-chat"));
    cmd.current_dir(work)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", hermes.parent().unwrap_or(hermes))
        .env("HERMES_HOME", hermes)
        .env("HERMES_BASE_URL", server.base_url())
        .env("HERMES_API_KEY", "sk-test-key-123456")
        .args(["-m", "fake-model", "--no-review"]);
    cmd
}

/// A home (`home/.hermes`) and a workspace beside it, in one temp folder.
fn places() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let hermes = dir.path().join("home/.hermes");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&hermes).expect("mkdir");
    std::fs::create_dir_all(&work).expect("mkdir");
    (dir, hermes, work)
}

fn events(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn thread_started_names_the_policy_in_force() {
    if !kernel_can_contain("thread_started_names_the_policy_in_force") {
        return;
    }
    let (_dir, hermes, work) = places();
    for (flags, want) in [
        (
            vec![],
            json!({"mode": "workspace-write", "network": "off", "mechanism": "landlock+seccomp+mountns"}),
        ),
        (
            vec!["--sandbox", "read-only", "--network", "loopback"],
            json!({"mode": "read-only", "network": "loopback", "mechanism": "landlock+seccomp+mountns+netns"}),
        ),
        (
            vec!["--sandbox", "full", "--network", "on"],
            json!({"mode": "full", "network": "on", "mechanism": "none"}),
        ),
    ] {
        let server = ChatServer::start(vec![Reply::text("hi")]);
        let out = chat_in(&work, &hermes, &server)
            .args(["--json", "-z", "hello"])
            .args(&flags)
            .output()
            .expect("hermes-chat");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let started = events(&out.stdout)
            .into_iter()
            .find(|e| e["type"] == "thread.started")
            .unwrap_or(Value::Null);
        assert_eq!(started["sandbox"], want, "{flags:?}");
    }
}

#[test]
fn a_bad_sandbox_setting_in_config_is_a_setup_error() {
    if !kernel_can_contain("a_bad_sandbox_setting_in_config_is_a_setup_error") {
        return;
    }
    let (_dir, hermes, work) = places();
    std::fs::write(hermes.join("config.yaml"), "sandbox:\n  mode: wide-open\n").expect("write");
    let server = ChatServer::start(vec![Reply::text("hi")]);
    let out = chat_in(&work, &hermes, &server)
        .args(["-z", "hello"])
        .output()
        .expect("hermes-chat");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().next(),
        Some(
            "hermes-chat: error: config.yaml: sandbox.mode: \"wide-open\" is not one of read-only, workspace-write, full"
        )
    );
}

/// The terminal call of `command`, then an answer.
fn one_command(command: &str) -> Vec<Reply> {
    let args = json!({"command": command}).to_string();
    vec![
        Reply::tool_call("call_1", "terminal", &args),
        Reply::text("done"),
    ]
}

/// What the model was told the `call_1` terminal call returned.
fn tool_result(server: &ChatServer) -> Value {
    let bodies = server.bodies();
    let content = bodies
        .last()
        .and_then(|b| b["messages"].as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .unwrap_or_default();
    serde_json::from_str(&content).unwrap_or(Value::Null)
}

#[test]
fn a_refused_write_is_named_in_one_line_the_model_reads() {
    if !kernel_can_contain("a_refused_write_is_named_in_one_line_the_model_reads") {
        return;
    }
    let (dir, hermes, work) = places();
    let target = dir.path().join("outside.txt");
    let server = ChatServer::start(one_command(&format!("echo x > {}", target.display())));
    let out = chat_in(&work, &hermes, &server)
        .args(["-z", "write it", "--approvals", "deny"])
        .output()
        .expect("hermes-chat");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!target.exists());
    let result = tool_result(&server);
    assert_eq!(result["exit_code"], 1);
    assert_eq!(
        result["error"],
        json!(format!(
            "write to {} denied by the sandbox (workspace-write)",
            target.display()
        ))
    );
    assert_eq!(result["sandbox_denied"], true);
}

/// Runs `command` under `--approvals on-failure` in JSONL mode, answering the sandbox's
/// question with `behavior`.
fn on_failure(behavior: &str) -> (tempfile::TempDir, PathBuf, Vec<Value>, Value) {
    let (dir, hermes, work) = places();
    let target = dir.path().join("outside.txt");
    let server = ChatServer::start(one_command(&format!("echo x > {}", target.display())));
    let stdin = format!(
        "{}\n{}\n",
        json!({"type": "user", "message": {"role": "user", "content": "write it"}}),
        json!({"type": "control_response", "response": {"request_id": "req_call_1",
            "subtype": "success", "response": {"behavior": behavior}}})
    );
    let mut child = chat_in(&work, &hermes, &server)
        .args(["--input-format", "jsonl", "--approvals", "on-failure"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hermes-chat");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = tool_result(&server);
    (dir, target, events(&out.stdout), result)
}

#[test]
fn on_failure_asks_after_a_refusal_and_runs_outside_once_allowed() {
    if !kernel_can_contain("on_failure_asks_after_a_refusal_and_runs_outside_once_allowed") {
        return;
    }
    let (_dir, target, events, result) = on_failure("allow");
    let request = events
        .iter()
        .find(|e| e["type"] == "control_request")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(request["request"]["tool_name"], "terminal");
    assert!(
        request["request"]["decision_reason"]
            .as_str()
            .unwrap_or("")
            .contains("denied by the sandbox (workspace-write); run it again outside the sandbox?"),
        "{request}"
    );
    let approval = events
        .iter()
        .find(|e| e["type"] == "item.completed" && e["item"]["type"] == "approval")
        .map(|e| (e["item"]["rule"].clone(), e["item"]["decision"].clone()));
    assert_eq!(approval, Some((json!("sandbox"), json!("approved"))));
    assert_eq!(
        std::fs::read_to_string(&target).ok().as_deref(),
        Some("x\n")
    );
    assert_eq!(result["exit_code"], 0);
}

#[test]
fn on_failure_denied_keeps_the_refusal_and_the_file_untouched() {
    if !kernel_can_contain("on_failure_denied_keeps_the_refusal_and_the_file_untouched") {
        return;
    }
    let (_dir, target, _events, result) = on_failure("deny");
    assert!(!target.exists());
    assert_eq!(result["sandbox_denied"], true);
}

#[test]
fn a_secret_value_in_output_is_redacted_before_anyone_reads_it() {
    if !kernel_can_contain("a_secret_value_in_output_is_redacted_before_anyone_reads_it") {
        return;
    }
    let (_dir, hermes, work) = places();
    std::fs::write(hermes.join(".env"), "SERVICE_KEY=sekrit-value-123\n").expect("write");
    std::fs::write(work.join("leak.txt"), "found sekrit-value-123 here\n").expect("write");
    let server = ChatServer::start(one_command("cat leak.txt"));
    let out = chat_in(&work, &hermes, &server)
        .args(["--json", "-z", "read it"])
        .output()
        .expect("hermes-chat");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        result_output(&tool_result(&server)),
        "found [REDACTED:SERVICE_KEY] here"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sekrit"));
}

fn result_output(result: &Value) -> String {
    result["output"].as_str().unwrap_or("").to_string()
}
